"""/v2/workflow/steps/*: reviewer decisions, resolve, cancel, and the resumeKey handle."""

from __future__ import annotations

import pytest

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent


@pytest.fixture
async def flow(api: ApiClient) -> Workflow:
    workflow = Workflow(api, await api.create_workspace())
    await workflow.create(
        definition(
            "ship-it",
            [
                human("review", ("alice", True), ("bob", False)),
                mock_agent("ship"),
                mock_agent("fix"),
            ],
            [edge("review", "ship", "approve"), edge("review", "fix", "reject")],
        )
    )
    return workflow


async def test_a_resume_key_stands_for_both_ids(flow: Workflow) -> None:
    execution_id = await flow.dispatch("ship-it")
    await flow.waiting_step(execution_id, "review")
    [_, awaiting] = await flow.events(execution_id)
    resume_key = awaiting["data"]["resumeKey"]
    answer = await flow.ok(
        "steps/recordReviewerDecision",
        {"resumeKey": resume_key, "reviewerId": "alice", "decision": "approve"},
    )
    assert answer["aggregatorStatus"] == "resolved"
    assert (await flow.ended(execution_id))["status"] == "completed"


async def test_a_step_needs_both_ids_or_a_resume_key(flow: Workflow) -> None:
    refused = await flow.call(
        "steps/recordReviewerDecision",
        {"executionId": "exec_1_x", "reviewerId": "alice", "decision": "approve"},
    )
    assert issue_paths(assert_failure(refused, 400, "INVALID_ARGUMENT")) == ["data.stepId"]
    refused = await flow.call(
        "steps/recordReviewerDecision",
        {"executionId": "exec_1_x", "stepId": "s", "reviewerId": "alice", "decision": "maybe"},
    )
    assert issue_paths(assert_failure(refused, 400, "INVALID_ARGUMENT")) == ["data.decision"]


async def test_unknown_execution_or_step_is_not_found(flow: Workflow) -> None:
    execution_id = await flow.dispatch("ship-it")
    for data in (
        {"executionId": "exec_0_missing", "stepId": "s"},
        {"executionId": execution_id, "stepId": "no-such-step"},
    ):
        refused = await flow.call(
            "steps/recordReviewerDecision", {**data, "reviewerId": "alice", "decision": "approve"}
        )
        assert_failure(refused, 404, "NOT_FOUND")


async def test_resolve_answers_and_maps_missing_steps_by_action(flow: Workflow) -> None:
    execution_id = await flow.dispatch("ship-it")
    step_id = await flow.waiting_step(execution_id, "review")
    missing = {"executionId": execution_id, "stepId": "nope", "actorId": "ops"}
    forced = await flow.call("steps/resolve", {**missing, "action": "force-approve"})
    error = assert_failure(forced, 400, "FAILED_PRECONDITION")
    assert error["message"] == "resolveStep not applied: step-not-found"
    reviewer = await flow.call("steps/resolve", {**missing, "action": "reviewer-approve"})
    assert_failure(reviewer, 404, "NOT_FOUND")
    target = {"executionId": execution_id, "stepId": step_id}
    denied = await flow.call(
        "steps/resolve", {**target, "action": "reviewer-reject", "actorId": "mallory"}
    )
    assert_failure(denied, 403, "PERMISSION_DENIED")
    resolved = await flow.ok(
        "steps/resolve",
        {**target, "action": "reviewer-reject", "actorId": "bob", "reason": "needs work"},
    )
    assert resolved == {**target, "resolved": True, "action": "reviewer-reject"}
    again = await flow.call(
        "steps/resolve", {**target, "action": "force-approve", "actorId": "ops"}
    )
    assert_failure(again, 400, "FAILED_PRECONDITION")
    execution = await flow.ended(execution_id)
    assert [s["nodeId"] for s in execution["steps"]] == ["review", "fix"]
    assert execution["steps"][0]["output"]["approvalReply"] == "needs work"


async def test_cancel_step_then_again_is_a_failed_precondition(flow: Workflow) -> None:
    execution_id = await flow.dispatch("ship-it")
    step_id = await flow.waiting_step(execution_id, "review")
    target = {"executionId": execution_id, "stepId": step_id}
    assert_failure(await flow.call("steps/cancel", target), 400, "INVALID_ARGUMENT")
    cancelled = await flow.ok("steps/cancel", {**target, "actorId": "admin_jane", "reason": "PTO"})
    assert cancelled == {**target, "cancelled": True}
    again = await flow.call("steps/cancel", {**target, "actorId": "admin_jane"})
    assert_failure(again, 400, "FAILED_PRECONDITION")
    execution = await flow.ended(execution_id)
    assert execution["status"] == "completed"
    [*_, cancelled_event, completed] = await flow.events(execution_id)
    assert cancelled_event["data"] == {"actorId": "admin_jane", "reason": "PTO"}
    assert completed["type"] == "execution.completed"


async def test_record_agent_resolution_needs_a_waiting_agent_step(flow: Workflow) -> None:
    execution_id = await flow.dispatch("ship-it")
    step_id = await flow.waiting_step(execution_id, "review")
    refused = await flow.call(
        "steps/recordAgentResolution",
        {
            "executionId": execution_id,
            "stepId": step_id,
            "responseId": "resp_1",
            "resolution": "resolved",
            "actorId": "user-1",
        },
    )
    assert_failure(refused, 400, "FAILED_PRECONDITION")
