"""Whole executions through the API, each asserting the exact visible event sequence: types in
order, seq strictly increasing, with gaps where internal events were."""

from __future__ import annotations

import asyncio

import pytest

from redline.testing.api import ApiClient
from tests.api.workflow_support import (
    Workflow,
    assert_seqs_increase,
    definition,
    edge,
    group_ref,
    human,
    mock_agent,
    visible,
)


@pytest.fixture
async def flow(api: ApiClient) -> Workflow:
    return Workflow(api, await api.create_workspace())


async def test_two_reviewers_one_mandatory_complete_on_the_mandatory_approval(
    flow: Workflow,
) -> None:
    await flow.create(
        definition(
            "sign-off",
            [human("review", ("alice", True), ("bob", False)), mock_agent("rework")],
            [edge("review", "rework", "reject")],
        )
    )
    execution_id = await flow.dispatch("sign-off")
    step_id = await flow.waiting_step(execution_id, "review")

    bob = await flow.decide(execution_id, step_id, "bob", "approve")
    assert bob == {"recorded": True, "aggregatorStatus": "pending", "resumeScheduled": False}
    alice = await flow.decide(execution_id, step_id, "alice", "approve", reason="fine")
    assert alice == {"recorded": True, "aggregatorStatus": "resolved", "resumeScheduled": True}

    execution = await flow.ended(execution_id)
    assert execution["status"] == "completed"
    [step] = execution["steps"]
    assert step["status"] == "completed"
    assert step["output"]["decision"] == "approve"
    assert step["output"]["approveCount"] == 2
    assert step["output"]["mandatoryApproveCount"] == 1
    events = await flow.events(execution_id)
    assert visible(events) == [
        ("execution.dispatched", None),
        ("step.awaiting-approval", "review"),
        ("step.completed", "review"),
        ("execution.completed", None),
    ]
    assert_seqs_increase(events)
    # Internal events (scheduled, started, two responses recorded, resumed) took seq values.
    assert [e["seq"] for e in events] == [1, 4, 8, 9]
    assert events[1]["data"] == {
        "waitingForReviewers": 2,
        "mandatoryCount": 1,
        "resumeKey": events[1]["data"]["resumeKey"],
    }
    assert events[2]["data"] == {
        "aggregatorStatus": "resolved",
        "nodeType": "human",
        "decision": "approve",
    }
    assert events[0]["data"]["rootStepIds"] == [step_id]
    assert all(e["correlationId"] == events[0]["correlationId"] for e in events)


async def test_a_reject_takes_the_reject_edge(flow: Workflow) -> None:
    await flow.create(
        definition(
            "sign-off",
            [human("review", ("alice", True), ("bob", False)), mock_agent("rework")],
            [edge("review", "rework", "reject")],
        )
    )
    execution_id = await flow.dispatch("sign-off")
    step_id = await flow.waiting_step(execution_id, "review")
    rejected = await flow.decide(execution_id, step_id, "bob", "reject", reason="typo")
    assert rejected == {"recorded": True, "aggregatorStatus": "rejected", "resumeScheduled": True}
    execution = await flow.ended(execution_id)
    assert execution["status"] == "completed"
    assert [s["nodeId"] for s in execution["steps"]] == ["review", "rework"]
    assert execution["steps"][1]["output"]["synthetic"] is True
    assert visible(await flow.events(execution_id)) == [
        ("execution.dispatched", None),
        ("step.awaiting-approval", "review"),
        ("step.completed", "review"),
        ("step.completed", "rework"),
        ("execution.completed", None),
    ]


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (
            "waitAll",
            [
                ("step.completed", "r1"),
                ("step.completed", "r2"),
                ("group.quorum-met", None),
                ("step.completed", "r3"),
                ("step.completed", "publish"),
            ],
        ),
        (
            "cancelOnQuorum",
            [
                ("step.completed", "r1"),
                ("step.completed", "r2"),
                ("group.quorum-met", None),
                ("step.cancelled", "r3"),
                ("step.completed", "publish"),
            ],
        ),
        (
            "joinOnQuorum",
            [
                ("step.completed", "r1"),
                ("step.completed", "r2"),
                ("group.quorum-met", None),
                ("step.cancelled", "r3"),
                ("step.completed", "publish"),
            ],
        ),
    ],
)
async def test_quorum_two_of_three(
    flow: Workflow, policy: str, expected: list[tuple[str, str | None]]
) -> None:
    nodes = [
        *(human(f"r{i}", (f"user{i}", True)) for i in (1, 2, 3)),
        mock_agent("publish"),
        mock_agent("redo"),
    ]
    # Every reviewer has a reject route. Under joinOnQuorum the members' shared target is the
    # group's to run, once; the others lead to publish as a group.
    edges = [edge(f"r{i}", "redo", "reject") for i in (1, 2, 3)]
    if policy == "joinOnQuorum":
        edges += [edge(f"r{i}", "publish") for i in (1, 2, 3)]
    else:
        edges.append(edge(group_ref("panel"), "publish", "approve"))
    if policy == "waitAll":
        edges.append(edge(group_ref("panel"), "redo", "reject"))
    group = {
        "groupId": "panel",
        "memberNodeIds": ["r1", "r2", "r3"],
        "expectedSteps": 3,
        "quorum": 2,
        "onQuorumMet": policy,
    }
    await flow.create(definition("panel-review", nodes, edges, groups=[group]))
    execution_id = await flow.dispatch("panel-review")
    steps = {node: await flow.waiting_step(execution_id, node) for node in ("r1", "r2", "r3")}
    await flow.decide(execution_id, steps["r1"], "user1", "approve")
    await flow.decide(execution_id, steps["r2"], "user2", "approve")
    if policy == "waitAll":
        await flow.decide(execution_id, steps["r3"], "user3", "approve")
    execution = await flow.ended(execution_id)
    assert execution["status"] == "completed"
    events = await flow.events(execution_id)
    assert_seqs_increase(events)
    tail = [e for e in visible(events) if e[0] != "step.awaiting-approval"]
    assert tail[-len(expected) - 1 : -1] == expected
    assert tail[-1] == ("execution.completed", None)


def _loop_definition(*, exhausted_route: bool) -> dict[str, object]:
    nodes = [mock_agent("draft"), human("review", ("alice", True))]
    edges = [
        edge("draft", "review"),
        edge("review", "draft", "reject", loop={"maxIterations": 2}),
    ]
    if exhausted_route:
        nodes.append(mock_agent("escalate"))
        edges.append(edge("review", "escalate", "exhausted"))
    return definition("revise", nodes, edges)


async def _reject(flow: Workflow, execution_id: str, times: int) -> None:
    for _ in range(times):
        step_id = await flow.waiting_step(execution_id, "review")
        await flow.decide(execution_id, step_id, "alice", "reject", reason="not yet")


async def test_a_reject_loop_runs_to_its_cap_then_takes_the_exhausted_route(
    flow: Workflow,
) -> None:
    await flow.create(_loop_definition(exhausted_route=True))
    execution_id = await flow.dispatch("revise")
    await _reject(flow, execution_id, 2)
    execution = await flow.ended(execution_id)
    assert execution["status"] == "completed"
    events = await flow.events(execution_id)
    assert_seqs_increase(events)
    assert visible(events) == [
        ("execution.dispatched", None),
        ("step.completed", "draft"),
        ("step.awaiting-approval", "review"),
        ("step.completed", "review"),
        ("loop.iteration-started", "review"),
        ("step.completed", "draft"),
        ("step.awaiting-approval", "review"),
        ("step.completed", "review"),
        ("loop.exhausted", "review"),
        ("step.completed", "escalate"),
        ("execution.completed", None),
    ]
    started = next(e for e in events if e["type"] == "loop.iteration-started")
    loop_id = started["data"]["loopId"]
    assert started["data"] == {"loopId": loop_id, "iteration": 2, "triggeredBy": "rejection"}
    exhausted = next(e for e in events if e["type"] == "loop.exhausted")
    assert exhausted["data"] == {
        "loopId": loop_id,
        "iteration": 2,
        "lastRejectedBy": "alice",
        "lastRejectionReason": "not yet",
    }
    second_draft = [s for s in execution["steps"] if s["nodeId"] == "draft"][1]
    assert second_draft["status"] == "completed"


async def test_a_loop_at_its_cap_with_no_exhausted_route_fails_the_run(flow: Workflow) -> None:
    await flow.create(_loop_definition(exhausted_route=False))
    execution_id = await flow.dispatch("revise")
    await _reject(flow, execution_id, 2)
    execution = await flow.ended(execution_id)
    assert execution["status"] == "failed"
    assert execution["failureReason"]["code"] == "loop-exhausted"
    assert [t for t, _ in visible(await flow.events(execution_id))][-2:] == [
        "loop.exhausted",
        "execution.failed",
    ]


async def test_an_sla_breach_is_routed_by_its_edge(flow: Workflow) -> None:
    breached = '{"op":"eq","args":[{"var":"step.status"},"breached"]}'
    await flow.create(
        definition(
            "deadline",
            [
                human("review", ("alice", True), slaMs=300),
                mock_agent("rework"),
                mock_agent("escalate"),
            ],
            [
                edge("review", "rework", "reject"),
                edge("review", "escalate", "custom", when=breached),
            ],
        )
    )
    execution_id = await flow.dispatch("deadline")
    execution = await flow.ended(execution_id)
    assert execution["status"] == "completed"
    review = execution["steps"][0]
    assert review["status"] == "breached"
    assert review["error"]["code"] == "sla-breached"
    events = await flow.events(execution_id)
    assert visible(events) == [
        ("execution.dispatched", None),
        ("step.awaiting-approval", "review"),
        ("step.breached", "review"),
        ("step.completed", "escalate"),
        ("execution.completed", None),
    ]
    assert events[2]["data"] == {"reason": "sla-exceeded"}
    assert events[2]["timestamp"] - events[1]["timestamp"] >= 300


@pytest.mark.parametrize(("priority", "taken"), [("high", "fast"), ("low", "slow")])
async def test_a_custom_edge_is_taken_or_not_by_the_trigger_context(
    flow: Workflow, priority: str, taken: str
) -> None:
    high = '{"op":"eq","args":[{"var":"execution.input.priority"},"high"]}'
    not_high = '{"op":"not","args":[' + high + "]}"
    await flow.create(
        definition(
            "triage",
            [mock_agent("start"), mock_agent("fast"), mock_agent("slow")],
            [
                edge("start", "fast", "custom", when=high),
                edge("start", "slow", "custom", when=not_high),
            ],
        )
    )
    execution_id = await flow.dispatch("triage", triggerContext={"priority": priority})
    execution = await flow.ended(execution_id)
    assert execution["status"] == "completed"
    assert [s["nodeId"] for s in execution["steps"]] == ["start", taken]
    assert visible(await flow.events(execution_id)) == [
        ("execution.dispatched", None),
        ("step.completed", "start"),
        ("step.completed", taken),
        ("execution.completed", None),
    ]


async def test_cancel_mid_flight_cancels_the_waiting_step_and_then_is_a_no_op(
    flow: Workflow,
) -> None:
    await flow.create(
        definition(
            "sign-off",
            [human("review", ("alice", True)), mock_agent("rework")],
            [edge("review", "rework", "reject")],
        )
    )
    execution_id = await flow.dispatch("sign-off")
    step_id = await flow.waiting_step(execution_id, "review")
    cancelled = await flow.ok(
        "executions/cancel", {"executionId": execution_id, "reason": "campaign postponed"}
    )
    assert cancelled == {"cancelled": True, "executionId": execution_id}
    again = await flow.ok("executions/cancel", {"executionId": execution_id})
    assert again == {"cancelled": False, "executionId": execution_id}
    execution = await flow.execution(execution_id)
    assert execution["status"] == "cancelled"
    assert execution["cancelledAt"] is not None
    assert execution["steps"][0]["status"] == "cancelled"
    events = await flow.events(execution_id)
    assert visible(events) == [
        ("execution.dispatched", None),
        ("step.awaiting-approval", "review"),
        ("step.cancelled", "review"),
        ("execution.cancelled", None),
    ]
    assert events[2]["data"] == {
        "actorId": "system:execution-cancel",
        "reason": "campaign postponed",
    }
    assert events[3]["data"] == {"reason": "campaign postponed"}
    late = await flow.call(
        "steps/recordReviewerDecision",
        {
            "executionId": execution_id,
            "stepId": step_id,
            "reviewerId": "alice",
            "decision": "approve",
        },
    )
    assert late.status == 400
    assert late.error["status"] == "FAILED_PRECONDITION"


async def test_reviewer_decisions_become_judgments_memory_can_search(flow: Workflow) -> None:
    await flow.create(
        definition(
            "copy-review",
            [
                human("review", ("alice", True), comment_body="Check the tone of the headline."),
                mock_agent("rework"),
            ],
            [edge("review", "rework", "reject")],
        )
    )
    execution_id = await flow.dispatch("copy-review", organizationId="org-1", documentId="doc-1")
    step_id = await flow.waiting_step(execution_id, "review")
    await flow.decide(
        execution_id, step_id, "alice", "reject", reason="the headline shouts in capitals"
    )
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        found = await flow.api.post(
            "/v2/memory/judgments/query", {}, headers=flow.workspace.key_headers
        )
        if found.result["results"] or asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.1)
    [judgment] = found.result["results"]
    assert judgment["decision"] == "reject"
    assert judgment["judgeType"] == "human"
    assert judgment["reasoning"] == "the headline shouts in capitals"
    assert judgment["contentType"] == "copy-review"
    assert judgment["actionUser"] == {"userId": "alice"}
    assert (judgment["organizationId"], judgment["documentId"]) == ("org-1", "doc-1")
    searched = await flow.api.post(
        "/v2/memory/search",
        {"query": "headline in all caps is too loud", "organizationId": "org-1"},
        headers=flow.workspace.key_headers,
    )
    assert [r["recordId"] for r in searched.result["results"]] == [judgment["recordId"]]
