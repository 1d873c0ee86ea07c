"""Resolving and cancelling steps, and cancelling the execution."""

from __future__ import annotations

import pytest

from redline.envelope.errors import FailedPrecondition, PermissionDenied
from redline.workflow.engine.interventions import cancel_execution, cancel_step, resolve
from redline.workflow.engine.scheduling import start_run
from services.workflow.tests import engine_support as es


def _run() -> es.Run:
    return es.Run(
        es.definition(
            [es.human("review", ("alice", True)), es.agent("ship"), es.agent("fix")],
            [es.edge("review", "ship", "approve"), es.edge("review", "fix", "reject")],
        )
    )


def test_the_engine_decides_the_decision_keys_whatever_the_output_says() -> None:
    run = _run()
    step = run.step("review")
    run.change(
        lambda t: resolve(
            t, step, "force-reject", "ops", {"decision": "approve", "note": "kept"}, "bad"
        )
    )
    assert step.output["decision"] == "reject"
    assert step.output["approved"] is False
    assert step.output["approvalReply"] == "bad"
    assert step.output["note"] == "kept"
    assert run.step("fix").status == "pending"
    overridden = next(e for e in run.events if e.type == "step.overridden")
    assert overridden.data == {
        "actorId": "ops",
        "action": "force-reject",
        "reason": "bad",
        "decision": "reject",
    }


def test_reviewer_actions_need_a_reviewer_and_a_human_step() -> None:
    run = _run()
    step = run.step("review")
    with pytest.raises(PermissionDenied):
        run.change(lambda t: resolve(t, step, "reviewer-approve", "mallory", None, None))
    run.change(lambda t: resolve(t, step, "reviewer-approve", "alice", None, None))
    assert run.step("ship").status == "pending"
    assert [n.actor_id for n in run.last.decisions] == ["alice"]
    ship = run.step("ship")
    with pytest.raises(FailedPrecondition):
        run.change(lambda t: resolve(t, ship, "reviewer-approve", "alice", None, None))


def test_force_approve_needs_a_waiting_step_and_force_fail_routes_as_a_failure() -> None:
    run = _run()
    run.change(lambda t: resolve(t, run.step("review"), "force-approve", "ops", None, None))
    ship = run.step("ship")
    with pytest.raises(FailedPrecondition):
        run.change(lambda t: resolve(t, ship, "force-approve", "ops", None, None))
    run.change(lambda t: start_run(t, ship))
    run.change(lambda t: resolve(t, ship, "force-fail", "ops", {"why": "stuck"}, "stuck"))
    assert ship.status == "failed"
    assert ship.output["why"] == "stuck"
    assert "overriddenAt" in ship.output
    assert run.state.status == "failed"


def test_cancelling_a_step_fires_none_of_its_edges() -> None:
    run = _run()
    step = run.step("review")
    run.change(lambda t: cancel_step(t, step, "ops", "no longer needed"))
    assert run.statuses() == [("review", "cancelled")]
    assert run.state.status == "completed"
    with pytest.raises(FailedPrecondition):
        run.change(lambda t: cancel_step(t, step, "ops", None))


def test_cancelling_an_execution_twice_changes_nothing_the_second_time() -> None:
    run = _run()
    assert run.change(lambda t: cancel_execution(t, "stop")) is True
    seq = run.state.last_seq
    assert run.change(lambda t: cancel_execution(t, "stop")) is False
    assert run.state.last_seq == seq
    assert run.visible()[-2:] == [("step.cancelled", "review"), ("execution.cancelled", None)]
