"""Calling routes with state made earlier in the same test, each call checked against the OpenAPI
document both ways: the request fits the route's request schema (so a client generated from the
document can send it), and the answer is a 200 that fits the route's response schema.

SEEDED names the routes the body builder of the generic sweep cannot make succeed, because they
need ids of things that exist, a step that waits, or content that decodes.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from redline.testing.api import ApiClient, Workspace
from tests.api.test_hostile_input import call
from tests.api.test_openapi_conformance import mismatches, request_mismatches

Json = dict[str, Any]

SEEDED = frozenset(
    {
        "/v2/auth/permissions/add",
        "/v2/auth/permissions/remove",
        "/v2/commentannotations/comments/delete",
        "/v2/commentannotations/comments/update",
        "/v2/commentannotations/count/get",
        "/v2/commentannotations/reactions/add",
        "/v2/commentannotations/reactions/delete",
        "/v2/commentannotations/suggestions/resolve",
        "/v2/memory/alerts/action",
        "/v2/memory/alerts/dismiss",
        "/v2/memory/knowledge/delete",
        "/v2/memory/knowledge/ingest",
        "/v2/memory/knowledge/ingest-status",
        "/v2/memory/knowledge/update",
        "/v2/notifications/add",
        "/v2/notifications/config/get",
        "/v2/notifications/config/set",
        "/v2/organizations/add",
        "/v2/organizations/documents/add",
        "/v2/organizations/documents/migrate",
        "/v2/organizations/documents/migrate/status",
        "/v2/organizations/documents/move",
        "/v2/users/data/delete/status",
        "/v2/users/data/get",
        "/v2/users/invite/add",
        "/v2/users/invite/respond",
        "/v2/workflow/definitions/create",
        "/v2/workflow/definitions/delete",
        "/v2/workflow/definitions/get",
        "/v2/workflow/definitions/update",
        "/v2/workflow/executions/cancel",
        "/v2/workflow/executions/dispatch",
        "/v2/workflow/executions/get",
        "/v2/workflow/executions/getEvents",
        "/v2/workflow/slack/config/update",
        "/v2/workflow/steps/cancel",
        "/v2/workflow/steps/recordAgentResolution",
        "/v2/workflow/steps/recordReviewerDecision",
        "/v2/workflow/steps/resolve",
        "/v2/workspace/additional-url-request",
        "/v2/workspace/advancedwebhook/endpoints/create",
        "/v2/workspace/advancedwebhook/endpoints/delete",
        "/v2/workspace/advancedwebhook/endpoints/get",
        "/v2/workspace/advancedwebhook/endpoints/secret/get",
        "/v2/workspace/advancedwebhook/endpoints/update",
        "/v2/workspace/advancedwebhookconfig/update",
        "/v2/workspace/apikey/copy",
        "/v2/workspace/domains/request",
        "/v2/workspace/email/send-login-link",
    }
)

# How often a poll asks again; how long it asks is each caller's deadline.
_POLL_S = 0.05


class Conformance:
    """One workspace's calls, each checked against the document; `checked` is every route that
    answered 200 with a body that fits its schema."""

    def __init__(self, api: ApiClient, ws: Workspace, doc: Json) -> None:
        self.api = api
        self.ws = ws
        self.doc = doc
        self.checked: set[str] = set()

    async def ok(self, path: str, data: Json, *, workspace: bool = False) -> Any:
        """The `result` of `path` called with `data` (with the workspace's credentials when
        `workspace`, else the API key's), which must fit the request schema and be answered 200
        with a body that fits the response schema."""
        sent = request_mismatches(self.doc, path, data)
        assert not sent, f"{path}: the document refuses {json.dumps(data)[:300]}: {sent}"
        headers = self.ws.workspace_headers if workspace else self.ws.key_headers
        status, body = await call(self.api, path, data, headers)
        assert status == 200, f"{path} answered {status}: {json.dumps(body)[:600]}"
        found = mismatches(self.doc, path, status, body)
        assert not found, f"{path}: the answer breaks its schema: {json.dumps(found, indent=1)}"
        self.checked.add(path)
        return body["result"]

    async def data(self, path: str, data: Json, *, workspace: bool = False) -> Any:
        """The `data` of an answer in the success envelope."""
        result = await self.ok(path, data, workspace=workspace)
        assert result["status"] == "success", result
        return result["data"]

    async def until(
        self,
        path: str,
        data: Json,
        done: Callable[[Any], bool],
        *,
        timeout_s: float = 30.0,
    ) -> Any:
        """The `result` of `path` once `done` holds for it, asked again until the deadline."""
        deadline = time.monotonic() + timeout_s
        while True:
            result = await self.ok(path, data)
            if done(result):
                return result
            assert time.monotonic() < deadline, f"{path} never got there: {result}"
            await asyncio.sleep(_POLL_S)


def waiting_step(execution: Json, node_id: str) -> str | None:
    """The id of the node's waiting step in an execution's view, if one waits."""
    waiting = [
        s["stepId"]
        for s in execution["steps"]
        if s["nodeId"] == node_id and s["status"] == "waiting"
    ]
    return waiting[-1] if waiting else None


def ended(execution: Json) -> bool:
    return execution["status"] in ("completed", "failed", "cancelled")
