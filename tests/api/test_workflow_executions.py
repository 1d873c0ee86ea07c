"""/v2/workflow/executions/*: dispatch rules and idempotency, reads, paging, and tenancy."""

from __future__ import annotations

import asyncio

import pytest

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent

SIGN_OFF = definition(
    "doc-signoff",
    [human("review", ("alice", True)), mock_agent("rework")],
    [edge("review", "rework", "reject")],
)


@pytest.fixture
async def flow(api: ApiClient) -> Workflow:
    workflow = Workflow(api, await api.create_workspace())
    await workflow.create(SIGN_OFF)
    return workflow


async def test_dispatch_answers_the_execution_and_its_correlation_id(flow: Workflow) -> None:
    result = await flow.ok(
        "executions/dispatch", {"definitionId": "doc-signoff", "correlationId": "corr_42"}
    )
    assert result["correlationId"] == "corr_42"
    assert result["deduplicated"] is False
    assert result["executionId"].startswith("exec_")
    execution = await flow.execution(result["executionId"])
    assert execution["status"] == "running"
    assert execution["definitionVersion"] == 1
    assert execution["idempotencyKey"] is None
    generated = await flow.ok("executions/dispatch", {"definitionId": "doc-signoff"})
    assert generated["correlationId"]


async def test_fifty_concurrent_dispatches_with_one_key_make_one_execution(
    flow: Workflow,
) -> None:
    data = {"definitionId": "doc-signoff", "idempotencyKey": "campaign-42:dispatch"}
    results = await asyncio.gather(*(flow.ok("executions/dispatch", data) for _ in range(50)))
    assert len({r["executionId"] for r in results}) == 1
    assert sum(not r["deduplicated"] for r in results) == 1
    listed = await flow.ok("executions/list", {"definitionId": "doc-signoff"})
    assert len(listed["items"]) == 1
    assert listed["items"][0]["idempotencyKey"] == "campaign-42:dispatch"


@pytest.mark.parametrize(
    ("extra", "path", "message"),
    [
        (
            {"webhookUrl": "https://hooks.example.com/a"},
            "data.webhookUrl",
            "webhookUrl and webhookSecret must be provided together",
        ),
        (
            {"webhookUrl": "http://hooks.example.com/a", "webhookSecret": "s" * 16},
            "data.webhookUrl",
            "webhookUrl must use https scheme",
        ),
        (
            {"webhookUrl": "https://10.0.0.7/a", "webhookSecret": "s" * 16},
            "data.webhookUrl",
            "webhookUrl host resolves to a private, loopback, or link-local address",
        ),
        (
            {"webhookUrl": "https://metadata.google.internal/a", "webhookSecret": "s" * 16},
            "data.webhookUrl",
            "webhookUrl host resolves to a private, loopback, or link-local address",
        ),
        ({"idempotencyKey": "has space"}, "data.idempotencyKey", None),
        (
            {"webhookUrl": "https://h.example.com", "webhookSecret": "short"},
            "data.webhookSecret",
            None,
        ),
        ({"triggerContext": []}, "data.triggerContext", None),
    ],
)
async def test_dispatch_refuses_bad_input_naming_the_field(
    flow: Workflow, extra: dict[str, object], path: str, message: str | None
) -> None:
    refused = await flow.call("executions/dispatch", {"definitionId": "doc-signoff", **extra})
    error = assert_failure(refused, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == [path]
    if message is not None:
        assert message in error["message"]
    listed = await flow.ok("executions/list", {})
    assert listed["items"] == []


async def test_dispatch_of_an_unknown_definition_is_not_found(flow: Workflow) -> None:
    refused = await flow.call("executions/dispatch", {"definitionId": "never-made"})
    assert_failure(refused, 404, "NOT_FOUND")


async def test_a_scoped_definition_needs_its_ids_at_dispatch(flow: Workflow) -> None:
    await flow.create(
        {
            **SIGN_OFF,
            "definitionId": "org-flow",
            "scope": {"level": "organization", "organizationId": "org-1"},
        }
    )
    refused = await flow.call("executions/dispatch", {"definitionId": "org-flow"})
    assert issue_paths(assert_failure(refused, 400, "INVALID_ARGUMENT")) == ["data.organizationId"]
    await flow.dispatch("org-flow", organizationId="org-1")


async def test_list_filters_and_pages_newest_first(flow: Workflow) -> None:
    ids = [await flow.dispatch("doc-signoff") for _ in range(5)]
    await flow.ok("executions/cancel", {"executionId": ids[0]})
    seen: list[str] = []
    cursor = None
    while True:
        data: dict[str, object] = {"pageSize": 2, "status": "running"}
        if cursor:
            data["cursor"] = cursor
        page = await flow.ok("executions/list", data)
        assert all(item["steps"] == [] for item in page["items"])
        seen += [item["executionId"] for item in page["items"]]
        assert page["hasMore"] == (page["nextCursor"] is not None)
        cursor = page["nextCursor"]
        if not cursor:
            break
    assert seen == ids[:0:-1]
    cancelled = await flow.ok("executions/list", {"status": "cancelled"})
    assert [i["executionId"] for i in cancelled["items"]] == [ids[0]]
    refused = await flow.call("executions/list", {"organizationId": "org-1"})
    assert_failure(refused, 400, "INVALID_ARGUMENT")


async def test_get_events_pages_by_seq(flow: Workflow) -> None:
    execution_id = await flow.dispatch("doc-signoff")
    step_id = await flow.waiting_step(execution_id, "review")
    await flow.decide(execution_id, step_id, "alice", "approve")
    await flow.ended(execution_id)
    first = await flow.ok("executions/getEvents", {"executionId": execution_id, "pageSize": 2})
    assert first["hasMore"] is True
    assert [e["type"] for e in first["events"]] == [
        "execution.dispatched",
        "step.awaiting-approval",
    ]
    rest = await flow.ok(
        "executions/getEvents",
        {"executionId": execution_id, "sinceSeq": first["nextCursor"], "pageSize": 2},
    )
    assert rest["hasMore"] is False
    assert [e["type"] for e in rest["events"]] == ["step.completed", "execution.completed"]
    empty = await flow.ok(
        "executions/getEvents", {"executionId": execution_id, "sinceSeq": rest["nextCursor"]}
    )
    assert empty == {
        "executionId": execution_id,
        "events": [],
        "nextCursor": rest["nextCursor"],
        "hasMore": False,
    }
    too_big = await flow.call(
        "executions/getEvents", {"executionId": execution_id, "pageSize": 501}
    )
    assert issue_paths(assert_failure(too_big, 400, "INVALID_ARGUMENT")) == ["data.pageSize"]


async def test_executions_of_one_workspace_are_invisible_to_another(
    flow: Workflow, api: ApiClient
) -> None:
    execution_id = await flow.dispatch("doc-signoff")
    step_id = await flow.waiting_step(execution_id, "review")
    other = Workflow(api, await api.create_workspace("other@example.com"))
    for endpoint, data in [
        ("executions/get", {"executionId": execution_id}),
        ("executions/getEvents", {"executionId": execution_id}),
        ("executions/cancel", {"executionId": execution_id}),
        (
            "steps/recordReviewerDecision",
            {
                "executionId": execution_id,
                "stepId": step_id,
                "reviewerId": "alice",
                "decision": "approve",
            },
        ),
        ("steps/cancel", {"executionId": execution_id, "stepId": step_id, "actorId": "x"}),
    ]:
        assert_failure(await other.call(endpoint, data), 404, "NOT_FOUND")
    assert (await other.ok("executions/list", {}))["items"] == []
    assert (await flow.execution(execution_id))["status"] == "running"
