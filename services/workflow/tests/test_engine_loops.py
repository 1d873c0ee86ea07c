"""Loop regions: a mandatory reviewer's reject re-enters the loop, up to its cap."""

from __future__ import annotations

from redline.workflow.engine.reviews import record_decision
from services.workflow.tests import engine_support as es


def _reject(run: es.Run, node: str, reviewer: str, reason: str = "again") -> None:
    step = run.step(node, "waiting")
    run.change(lambda t: record_decision(t, step, reviewer, "reject", reason))


def test_each_iteration_gets_the_attempts_before_it() -> None:
    run = es.Run(
        es.definition(
            [es.agent("draft"), es.human("review", ("alice", True))],
            [
                es.edge("draft", "review"),
                es.edge("review", "draft", "reject", loop={"maxIterations": 3}),
            ],
        )
    )
    run.approve_agent("draft")
    _reject(run, "review", "alice", "too long")
    entry = run.step("draft", "pending")
    assert entry.iteration == 2
    assert entry.input["iteration"] == 2
    [attempt] = entry.input["previousAttempts"]
    assert attempt["rejectedBy"] == "alice"
    assert attempt["rejectionReason"] == "too long"
    assert attempt["authorOutput"] == {"decision": "approve"}


def test_a_reject_by_an_optional_reviewer_does_not_iterate() -> None:
    run = es.Run(
        es.definition(
            [es.agent("draft"), es.human("review", ("alice", True), ("bob", False))],
            [
                es.edge("draft", "review"),
                es.edge("review", "draft", "reject", loop={"maxIterations": 3}),
            ],
        )
    )
    run.approve_agent("draft")
    _reject(run, "review", "bob")
    assert "loop.iteration-started" not in run.types()
    assert run.state.status == "completed"


def test_a_group_bounded_loop_rewinds_the_whole_stage() -> None:
    group = {"kind": "group", "groupId": "panel"}
    run = es.Run(
        es.definition(
            [
                es.agent("draft"),
                es.human("legal", ("l", True)),
                es.human("brand", ("b", True)),
                es.agent("publish"),
            ],
            [
                es.edge("draft", "legal"),
                es.edge("draft", "brand"),
                es.edge("legal", "publish"),
                es.edge("brand", "publish"),
                es.edge(group, "draft", "reject", loop={"maxIterations": 3}),
            ],
            groups=[
                {
                    "groupId": "panel",
                    "memberNodeIds": ["legal", "brand"],
                    "expectedSteps": 2,
                    "quorum": 2,
                    "onQuorumMet": "joinOnQuorum",
                }
            ],
        )
    )
    run.approve_agent("draft")
    _reject(run, "legal", "l")
    assert run.step("brand").status == "cancelled"
    assert run.step("draft", "pending").iteration == 2
    run.approve_agent("draft")
    for node, reviewer in (("legal", "l"), ("brand", "b")):
        step = run.step(node, "waiting")
        run.change(lambda t, s=step, r=reviewer: record_decision(t, s, r, "approve", None))
    # Quorum starts from zero in the new iteration, and the stage's target runs once.
    [publish] = [s for s in run.state.steps.values() if s.node_id == "publish"]
    assert publish.input["totalApproved"] == 2
    run.approve_agent("publish")
    assert run.state.status == "completed"
