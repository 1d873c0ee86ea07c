"""A human step's aggregator: reviewers' decisions are recorded one by one; any reject rejects
the step, every mandatory reviewer's approval resolves it. Either way the step completes at once
with the aggregator's rollup as its output, and routes."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from redline.envelope.errors import FailedPrecondition
from redline.workflow.engine.routing import finish_step
from redline.workflow.engine.state import DecisionNote, Json, StepState, reviewed_content
from redline.workflow.engine.transition import Transition

RejectionReason = Literal[
    "idempotent", "already-terminal", "unknown-responder", "aggregator-missing"
]
AggregatorStatus = Literal["pending", "resolved", "rejected"]


class DecisionRecorded(msgspec.Struct, frozen=True, omit_defaults=True):
    """The answer of recordReviewerDecision."""

    recorded: bool
    aggregatorStatus: AggregatorStatus | None
    resumeScheduled: bool
    rejectionReason: RejectionReason | None = None


def record_decision(
    t: Transition, step: StepState, reviewer_id: str, decision: str, reason: str | None
) -> DecisionRecorded:
    if step.node_type != "human":
        raise FailedPrecondition(f"Step {step.step_id} is not a human step.")
    status: AggregatorStatus | None = step.output.get("aggregatorStatus")
    if step.status == "pending" or status is None:
        return DecisionRecorded(False, None, False, "aggregator-missing")
    if status != "pending":
        return DecisionRecorded(False, status, False, "already-terminal")
    if step.status != "waiting":
        raise FailedPrecondition(f"Step {step.step_id} is {step.status}, not waiting.")
    reviewer = _reviewer(step, reviewer_id)
    if reviewer is None:
        return DecisionRecorded(False, status, False, "unknown-responder")
    if reviewer_id in step.responses:
        return DecisionRecorded(False, status, False, "idempotent")
    step.responses[reviewer_id] = {
        "decision": decision,
        "reason": reason,
        "mandatory": reviewer["mandatory"],
        "recordedAt": t.now,
    }
    step.changed = True
    t.emit(
        "step.response-recorded", step.step_id, {"reviewerId": reviewer_id, "decision": decision}
    )
    t.changes.decisions.append(
        DecisionNote(
            "reviewer",
            step.step_id,
            step.node_id,
            reviewer_id,
            decision,
            reason,
            content=reviewed_content(step),
        )
    )
    outcome = _aggregate(step)
    if outcome == "pending":
        return DecisionRecorded(True, "pending", False)
    resume(t, step, outcome)
    return DecisionRecorded(True, outcome, True)


def is_reviewer(step: StepState, user_id: str) -> bool:
    return _reviewer(step, user_id) is not None


def resume(t: Transition, step: StepState, outcome: AggregatorStatus) -> None:
    """Complete the step with the aggregator's rollup and route it."""
    output = rollup(step, outcome, t.now)
    t.emit("step.resumed", step.step_id)
    finish_step(
        t,
        step,
        "completed",
        output=output,
        data={"aggregatorStatus": outcome, "nodeType": "human", "decision": output["decision"]},
    )


def rollup(step: StepState, outcome: str, now_ms: int) -> Json:
    responses: dict[str, Any] = step.responses
    reviewers: list[Json] = step.output.get("reviewers", [])
    mandatory = [r["userId"] for r in reviewers if r["mandatory"]]
    approvals = [rid for rid, r in responses.items() if r["decision"] == "approve"]
    rejections = [(rid, r) for rid, r in responses.items() if r["decision"] == "reject"]
    decision = "approve" if outcome == "resolved" else "reject"
    output: Json = {
        **step.output,
        "aggregatorStatus": outcome,
        "approveCount": len(approvals),
        "rejectCount": len(rejections),
        "totalResponses": len(responses),
        "mandatoryCount": len(mandatory),
        "mandatoryApproveCount": sum(1 for rid in approvals if rid in mandatory),
        "decision": decision,
        "approved": decision == "approve",
        "resumedAt": now_ms,
    }
    if rejections:
        rejected_by, response = rejections[0]
        output["rejectedBy"] = rejected_by
        output["rejectorMandatory"] = bool(response["mandatory"])
        output["rejectionReason"] = response.get("reason")
    return output


def _reviewer(step: StepState, user_id: str) -> Json | None:
    for reviewer in step.output.get("reviewers", []):
        if reviewer["userId"] == user_id:
            return dict(reviewer)
    return None


def _aggregate(step: StepState) -> AggregatorStatus:
    responses: dict[str, Any] = step.responses
    if any(r["decision"] == "reject" for r in responses.values()):
        return "rejected"
    mandatory = [r["userId"] for r in step.output.get("reviewers", []) if r["mandatory"]]
    if all(responses.get(uid, {}).get("decision") == "approve" for uid in mandatory):
        return "resolved"
    return "pending"
