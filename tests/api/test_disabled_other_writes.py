"""Notify, memory and workflow under a disabled organization or document: activity records,
knowledge ingest and workflow dispatch scoped to it are refused with FAILED_PRECONDITION and
leave nothing behind; enabling restores them."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.disable_support import (
    disable_doc,
    disable_org,
    set_orgs_disabled,
    until_accepted,
)
from tests.api.documents_support import add_docs
from tests.api.knowledge_support import TEXT, inline
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent

ACTIVITY = {"organizationId": "acme", "documentId": "d1"}


async def _seeded(api: ApiClient) -> Workspace:
    ws = await api.create_workspace()
    added = await add_docs(api, ws, "d1", "d2")
    assert added.status == 200, added.body
    await Workflow(api, ws).create(
        definition(
            "review",
            [human("review", ("alice", True)), mock_agent("rework")],
            [edge("review", "rework", "reject")],
            scope={"level": "organization", "organizationId": "acme"},
        )
    )
    return ws


def _writes(doc: str) -> list[tuple[str, dict[str, Any]]]:
    scope = {"organizationId": "acme", "documentId": doc}
    return [
        ("/v2/activities/add", {**scope, "activities": [{"id": f"r-{doc}", "actionType": "a"}]}),
        (
            "/v2/memory/knowledge/ingest",
            inline(b"Invoices are paid within thirty days.\n", TEXT, "terms.txt", **scope),
        ),
        ("/v2/workflow/executions/dispatch", {**scope, "definitionId": "review"}),
    ]


async def _refused(api: ApiClient, ws: Workspace, doc: str, reason: str) -> None:
    for path, body in _writes(doc):
        refused = await api.post(path, body, headers=ws.key_headers)
        error = assert_failure(refused, 400, "FAILED_PRECONDITION")
        assert error["details"]["reason"] == reason, path


async def _nothing_left(api: ApiClient, ws: Workspace) -> None:
    activities = await api.post(
        "/v2/activities/get", {"organizationId": "acme"}, headers=ws.key_headers
    )
    assert activities.data == []
    sources = await api.post("/v2/memory/knowledge/list", {}, headers=ws.key_headers)
    assert sources.result == []
    executions = await Workflow(api, ws).ok("executions/list", {"definitionId": "review"})
    assert executions["items"] == []


async def test_a_disabled_organization_refuses_them(api: ApiClient) -> None:
    ws = await _seeded(api)
    await disable_org(api, ws)

    await _refused(api, ws, "d1", "organization-disabled")
    refused = await api.post(
        "/v2/activities/update",
        {"organizationId": "acme", "activities": [{"id": "r-d1"}]},
        headers=ws.key_headers,
    )

    assert_failure(refused, 400, "FAILED_PRECONDITION")
    await _nothing_left(api, ws)


async def test_a_disabled_document_refuses_them_and_its_siblings_take_them(
    api: ApiClient,
) -> None:
    ws = await _seeded(api)
    await disable_doc(api, ws, "d1")

    await _refused(api, ws, "d1", "document-disabled")
    await _nothing_left(api, ws)

    for path, body in _writes("d2"):
        done = await api.post(path, body, headers=ws.key_headers)
        assert done.status == 200, (path, done.body)


async def test_enabling_the_organization_restores_them(api: ApiClient) -> None:
    ws = await _seeded(api)
    await disable_org(api, ws)
    await _refused(api, ws, "d1", "organization-disabled")

    enabled = await set_orgs_disabled(api, ws, "acme", disabled=False)
    assert enabled.status == 200, enabled.body

    for path, body in _writes("d1"):
        done = await until_accepted(api, ws, path, body)
        assert done.status == 200, (path, done.body)
