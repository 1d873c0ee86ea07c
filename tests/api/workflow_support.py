"""Building definitions and driving executions in workflow API tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from redline.testing.api import ApiClient, Response, Workspace

Json = dict[str, Any]


def human(
    node_id: str, *reviewers: tuple[str, bool], comment_body: str | None = None, **extra: Any
) -> Json:
    """A human node; each reviewer is (userId, mandatory); `extra` are node fields."""
    config: Json = {"reviewers": [{"userId": u, "mandatory": m} for u, m in reviewers]}
    if comment_body is not None:
        config["commentBody"] = comment_body
    return {"nodeId": node_id, "type": "human", "config": config, **extra}


def mock_agent(node_id: str, **extra: Any) -> Json:
    """An agent node on the built-in `__mock__` agent, which approves at once."""
    return {
        "nodeId": node_id,
        "type": "agent",
        "config": {"agentId": "__mock__", "url": "https://example.com/page"},
        **extra,
    }


def webhook(node_id: str, url: str, **config: Any) -> Json:
    return {"nodeId": node_id, "type": "webhook", "config": {"url": url, **config}}


def edge(source: Any, target: Any, on: str | None = None, **extra: Any) -> Json:
    found: Json = {"from": source, "to": target}
    if on is not None:
        found["on"] = on
    return {**found, **extra}


def group_ref(group_id: str) -> Json:
    return {"kind": "group", "groupId": group_id}


def definition(definition_id: str, nodes: list[Json], edges: list[Json], **extra: Any) -> Json:
    return {
        "definitionId": definition_id,
        "name": definition_id,
        "nodes": nodes,
        "edges": edges,
        **extra,
    }


class Workflow:
    """One workspace's view of the workflow endpoints."""

    def __init__(self, api: ApiClient, workspace: Workspace) -> None:
        self.api = api
        self.workspace = workspace

    async def call(self, endpoint: str, data: Json) -> Response:
        return await self.api.post(
            f"/v2/workflow/{endpoint}", data, headers=self.workspace.key_headers
        )

    async def ok(self, endpoint: str, data: Json) -> Json:
        response = await self.call(endpoint, data)
        assert response.status == 200, response.body
        result: Json = response.result
        return result

    async def create(self, body: Json) -> Json:
        return await self.ok("definitions/create", body)

    async def dispatch(self, definition_id: str, **extra: Any) -> str:
        result = await self.ok("executions/dispatch", {"definitionId": definition_id, **extra})
        execution_id: str = result["executionId"]
        return execution_id

    async def execution(self, execution_id: str) -> Json:
        return await self.ok("executions/get", {"executionId": execution_id})

    async def events(self, execution_id: str, since: int = 0) -> list[Json]:
        """Every visible event after `since`, page by page."""
        found: list[Json] = []
        while True:
            page = await self.ok(
                "executions/getEvents",
                {"executionId": execution_id, "sinceSeq": since, "pageSize": 50},
            )
            found += page["events"]
            since = page["nextCursor"]
            if not page["hasMore"]:
                return found

    async def decide(
        self, execution_id: str, step_id: str, reviewer: str, decision: str, **extra: Any
    ) -> Json:
        return await self.ok(
            "steps/recordReviewerDecision",
            {
                "executionId": execution_id,
                "stepId": step_id,
                "reviewerId": reviewer,
                "decision": decision,
                **extra,
            },
        )

    async def until(
        self, execution_id: str, check: Callable[[Json], bool], timeout_s: float = 15.0
    ) -> Json:
        """Poll the execution until `check` holds for it."""
        deadline = time.monotonic() + timeout_s
        while True:
            execution = await self.execution(execution_id)
            if check(execution):
                return execution
            assert time.monotonic() < deadline, execution
            await asyncio.sleep(0.05)

    async def ended(self, execution_id: str, timeout_s: float = 15.0) -> Json:
        return await self.until(
            execution_id,
            lambda e: e["status"] in ("completed", "failed", "cancelled"),
            timeout_s,
        )

    async def waiting_step(self, execution_id: str, node_id: str) -> str:
        """The id of the node's step once it waits."""
        execution = await self.until(
            execution_id,
            lambda e: any(s["nodeId"] == node_id and s["status"] == "waiting" for s in e["steps"]),
        )
        step_ids = [
            s["stepId"]
            for s in execution["steps"]
            if s["nodeId"] == node_id and s["status"] == "waiting"
        ]
        return step_ids[-1]


def visible(events: list[Json]) -> list[tuple[str, str | None]]:
    """(type, node id of the step or None) of each event, in order."""
    return [(e["type"], node_of(e["stepId"])) for e in events]


def node_of(step_id: str | None) -> str | None:
    """The node a step id names: the last hop of `…__to__<node>`, or `step_<node>_<ms>_<rand>`,
    or a `group_…__to__<node>`."""
    if step_id is None:
        return None
    last = step_id.rsplit("__to__", 1)[-1]
    if "__to__" in step_id:
        return last.split("~", 1)[0]
    return last.removeprefix("step_").rsplit("_", 2)[0]


def assert_seqs_increase(events: list[Json]) -> None:
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(set(seqs)), seqs
