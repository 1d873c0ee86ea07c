"""What callers do to a running execution besides recording reviewer decisions: resolve a step
(operator overrides and reviewer actions), cancel a step, cancel the whole execution."""

from __future__ import annotations

from typing import Literal

from redline.envelope.errors import FailedPrecondition, PermissionDenied
from redline.workflow.engine.reviews import is_reviewer, rollup
from redline.workflow.engine.routing import finish_step, route
from redline.workflow.engine.state import DecisionNote, Json, StepState, reviewed_content
from redline.workflow.engine.transition import SYSTEM_EXECUTION_CANCEL, Transition

Action = Literal[
    "force-approve",
    "force-reject",
    "force-complete",
    "force-fail",
    "reviewer-approve",
    "reviewer-reject",
]

# The step states each action applies to.
_ALLOWED: dict[str, frozenset[str]] = {
    "force-approve": frozenset({"waiting"}),
    "force-reject": frozenset({"waiting"}),
    "force-complete": frozenset({"running", "waiting"}),
    "force-fail": frozenset({"running", "waiting"}),
    "reviewer-approve": frozenset({"waiting"}),
    "reviewer-reject": frozenset({"waiting"}),
}


def resolve(
    t: Transition,
    step: StepState,
    action: Action,
    actor_id: str,
    output: Json | None,
    reason: str | None,
) -> None:
    _check_allowed(step, action, actor_id)
    decision = _decision_of(action)
    t.emit(
        "step.overridden",
        step.step_id,
        {"actorId": actor_id, "action": action, "reason": reason, "decision": decision},
    )
    if decision is None:
        _force_ending(t, step, action, output, reason)
        return
    if action.startswith("reviewer-"):
        t.changes.decisions.append(
            DecisionNote(
                "reviewer",
                step.step_id,
                step.node_id,
                actor_id,
                decision,
                reason,
                content=reviewed_content(step),
            )
        )
    _complete_decided(t, step, decision, output, reason)


def _check_allowed(step: StepState, action: Action, actor_id: str) -> None:
    """Refuse an action the step's kind, its status or the actor does not allow: a reviewer's
    action takes a human step and one of its reviewers."""
    if action.startswith("reviewer-"):
        if step.node_type != "human":
            raise FailedPrecondition(f"{action} applies to human steps; {step.step_id} is not one.")
        if not is_reviewer(step, actor_id):
            raise PermissionDenied(f"{actor_id} is not a reviewer of step {step.step_id}.")
    if step.status not in _ALLOWED[action]:
        raise FailedPrecondition(
            f"resolveStep not applied: step {step.step_id} is {step.status}; {action} needs "
            + " or ".join(sorted(_ALLOWED[action]))
            + "."
        )


def _complete_decided(
    t: Transition, step: StepState, decision: str, output: Json | None, reason: str | None
) -> None:
    """Complete the step with the decision an action made of it."""
    base = rollup(step, _aggregator_status(decision), t.now) if step.node_type == "human" else {}
    # The engine's own keys win over the caller's: the audit log and the routing agree.
    resolved = {
        **step.output,
        **base,
        **(output or {}),
        "decision": decision,
        "approved": decision == "approve",
        "approvalReply": reason,
        "overriddenAt": t.now,
    }
    data: Json = {"nodeType": step.node_type, "decision": decision}
    if step.node_type == "human":
        data = {"aggregatorStatus": _aggregator_status(decision), **data}
    finish_step(t, step, "completed", output=resolved, data=data)


def cancel_step(t: Transition, step: StepState, actor_id: str, reason: str | None) -> None:
    if not step.active:
        raise FailedPrecondition(f"Step {step.step_id} is already {step.status}.")
    t.cancel(step, actor_id, reason)
    route(t, step)


def cancel_execution(t: Transition, reason: str | None) -> bool:
    """Cancel the run and every step still going; False (and nothing done) if it had ended."""
    execution = t.execution
    if execution.terminal:
        return False
    for step in execution.active_steps():
        t.cancel(step, SYSTEM_EXECUTION_CANCEL, reason)
    execution.status = "cancelled"
    execution.cancelled_at = t.now
    execution.completed_at = t.now
    t.emit("execution.cancelled", None, {"reason": reason})
    return True


def _decision_of(action: Action) -> str | None:
    if action.endswith("-approve"):
        return "approve"
    if action.endswith("-reject"):
        return "reject"
    return None


def _aggregator_status(decision: str) -> Literal["resolved", "rejected"]:
    return "resolved" if decision == "approve" else "rejected"


def _force_ending(
    t: Transition, step: StepState, action: Action, output: Json | None, reason: str | None
) -> None:
    """force-complete and force-fail: the caller's output, stamped, replaces the step's."""
    forced: Json = {"overriddenAt": t.now, **(output or {})}
    if action == "force-complete":
        finish_step(t, step, "completed", output=forced, data={"nodeType": step.node_type})
        return
    message = reason or "failed by an operator"
    finish_step(
        t,
        step,
        "failed",
        output=forced,
        data={"reason": "force-fail"},
        error={"code": "force-fail", "message": message},
    )
