"""A human step's aggregator, as recordReviewerDecision answers it."""

from __future__ import annotations

import pytest

from redline.envelope.errors import FailedPrecondition
from redline.workflow.engine.reviews import DecisionRecorded, record_decision
from services.workflow.tests import engine_support as es


def _run() -> es.Run:
    return es.Run(
        es.definition(
            [es.human("review", ("alice", True), ("bob", True), ("carol", False)), es.agent("fix")],
            [es.edge("review", "fix", "reject")],
        )
    )


def _decide(run: es.Run, reviewer: str, decision: str) -> DecisionRecorded:
    step = run.step("review")
    result: DecisionRecorded = run.change(
        lambda t: record_decision(t, step, reviewer, decision, f"{reviewer} says {decision}")
    )
    return result


def test_the_step_resolves_only_when_every_mandatory_reviewer_approved() -> None:
    run = _run()
    assert _decide(run, "carol", "approve") == DecisionRecorded(True, "pending", False)
    assert _decide(run, "alice", "approve") == DecisionRecorded(True, "pending", False)
    assert _decide(run, "bob", "approve") == DecisionRecorded(True, "resolved", True)
    step = run.step("review")
    assert step.status == "completed"
    assert step.output["decision"] == "approve"
    assert step.output["approved"] is True
    assert (step.output["approveCount"], step.output["mandatoryApproveCount"]) == (3, 2)
    assert run.state.status == "completed"


def test_any_reject_rejects_and_names_the_rejector() -> None:
    run = _run()
    assert _decide(run, "carol", "reject") == DecisionRecorded(True, "rejected", True)
    output = run.step("review").output
    assert output["decision"] == "reject"
    assert output["rejectedBy"] == "carol"
    assert output["rejectorMandatory"] is False
    assert output["rejectionReason"] == "carol says reject"
    assert run.step("fix").status == "pending"


def test_answers_that_record_nothing() -> None:
    run = _run()
    assert _decide(run, "mallory", "approve") == DecisionRecorded(
        False, "pending", False, "unknown-responder"
    )
    assert _decide(run, "alice", "approve").recorded
    assert _decide(run, "alice", "reject") == DecisionRecorded(
        False, "pending", False, "idempotent"
    )
    assert _decide(run, "bob", "approve").aggregatorStatus == "resolved"
    assert _decide(run, "carol", "approve") == DecisionRecorded(
        False, "resolved", False, "already-terminal"
    )


def test_a_step_that_is_not_human_or_no_longer_waits_is_refused() -> None:
    run = _run()
    assert _decide(run, "alice", "reject").aggregatorStatus == "rejected"
    fix = run.step("fix")
    with pytest.raises(FailedPrecondition):
        run.change(lambda t: record_decision(t, fix, "alice", "approve", None))


def test_each_recorded_decision_is_a_decision_for_memory() -> None:
    run = _run()
    _decide(run, "alice", "approve")
    [note] = run.last.decisions
    assert (note.kind, note.actor_id, note.decision, note.node_id) == (
        "reviewer",
        "alice",
        "approve",
        "review",
    )
