"""The automatic side of an execution: dispatch, a worker's run of a node and its outcome, an
async callback, and an SLA running out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from redline.envelope.errors import FailedPrecondition
from redline.workflow.engine.nodes.outcome import NodeOutcome
from redline.workflow.engine.routing import finish_step
from redline.workflow.engine.scheduling import schedule
from redline.workflow.engine.state import DecisionNote, Json, StepState, reviewed_content
from redline.workflow.engine.transition import Transition, root_step_id


def dispatch(t: Transition) -> list[str]:
    """Start the run: `execution.dispatched`, then every root node's step."""
    roots = [(node_id, root_step_id(node_id, t.now)) for node_id in t.graph.roots]
    t.emit(
        "execution.dispatched",
        None,
        {
            "definitionId": t.execution.definition_id,
            "definitionVersion": t.execution.definition_version,
            "rootStepIds": [step_id for _, step_id in roots],
        },
    )
    for node_id, step_id in roots:
        schedule(t, node_id, step_id, {}, iteration=1)
    return [step_id for _, step_id in roots]


def finish_run(
    t: Transition, step: StepState, outcome: NodeOutcome, retry_delays_s: Sequence[float]
) -> None:
    """Record what a worker's run of the step came to. A retryable failure runs the node again
    after the next delay of `retry_delays_s` (or the one the far side asked for), until the
    delays are spent; then the step fails. A step that ended meanwhile (cancelled, breached)
    keeps its ending: the outcome is dropped."""
    if t.execution.terminal or step.status != "running":
        return
    if outcome.status == "retry":
        step.failures += 1
        step.changed = True
        if step.failures <= len(retry_delays_s):
            delay_s = outcome.retry_after_s
            if delay_s is None:
                delay_s = retry_delays_s[step.failures - 1]
            t.add_task(step, "run", t.now + int(delay_s * 1000))
            return
    _apply(t, step, outcome)


def finish_callback(t: Transition, step: StepState, outcome: NodeOutcome) -> bool:
    """An async webhook's or agent's callback: False if the step no longer waits for one."""
    if t.execution.terminal or step.status != "waiting":
        return False
    _apply(t, step, outcome)
    return True


def breach(t: Transition, step: StepState, sla_ms: int) -> None:
    """The step's SLA ran out before it ended."""
    if t.execution.terminal or not step.active:
        return
    finish_step(
        t,
        step,
        "breached",
        output=step.output,
        data={"reason": "sla-exceeded"},
        error={"code": "sla-breached", "message": f"no outcome within slaMs ({sla_ms} ms)"},
    )


def _apply(t: Transition, step: StepState, outcome: NodeOutcome) -> None:
    if outcome.status == "waiting":
        step.output = outcome.output
        t.set_status(step, "waiting")
        t.drop_task(step, "run")
        t.emit("step.awaiting-approval", step.step_id, outcome.data)
        return
    if step.node_type == "agent":
        _note_agent_decision(t, step, outcome.output)
    status = "completed" if outcome.status == "completed" else "failed"
    finish_step(
        t,
        step,
        status,
        output=outcome.output,
        data=outcome.data if outcome.data is not None else {"nodeType": step.node_type},
        error=msgspec.to_builtins(outcome.error) if outcome.error else None,
    )


def _note_agent_decision(t: Transition, step: StepState, output: Json) -> None:
    decision = output.get("decision")
    if decision not in ("approve", "reject") or output.get("synthetic"):
        return
    summary = output.get("agentResultsSummary")
    t.changes.decisions.append(
        DecisionNote(
            "agent",
            step.step_id,
            step.node_id,
            str(output.get("agentId") or t.graph.nodes[step.node_id]["config"].get("agentId")),
            str(decision),
            None,
            content=reviewed_content(step),
            agent_execution_id=output.get("agentExecutionId"),
            agent_fields={"agentResultsSummary": summary} if summary is not None else None,
        )
    )


def record_agent_resolution(
    t: Transition,
    step: StepState,
    response_id: str,
    resolution: str,
    actor_id: str,
    reason: str | None,
) -> tuple[bool, Literal["pending", "resolved", "rejected"]]:
    """Resolve a waiting agent step from outside (once per response id): `resolved` completes it
    approved, `rejected` completes it rejected. Returns whether it was recorded, and the step's
    resolution status."""
    if step.node_type != "agent":
        raise FailedPrecondition(f"Step {step.step_id} is not an agent step.")
    if response_id in step.responses:
        return False, _resolution_status(step)
    if step.status != "waiting":
        raise FailedPrecondition(f"Step {step.step_id} is {step.status}, not waiting.")
    decision = "approve" if resolution == "resolved" else "reject"
    step.responses[response_id] = {
        "resolution": resolution,
        "actorId": actor_id,
        "reason": reason,
        "recordedAt": t.now,
    }
    step.changed = True
    t.emit("step.response-recorded", step.step_id, {"responseId": response_id})
    agent_id = str(t.graph.nodes[step.node_id]["config"].get("agentId"))
    t.changes.decisions.append(
        DecisionNote(
            "agent",
            step.step_id,
            step.node_id,
            agent_id,
            decision,
            reason,
            content=reviewed_content(step),
            agent_execution_id=step.output.get("agentExecutionId"),
        )
    )
    output = {
        **step.output,
        "decision": decision,
        "approved": decision == "approve",
        "resolution": resolution,
        "responseId": response_id,
        "resolvedBy": actor_id,
        "resolutionReason": reason,
    }
    t.emit("step.resumed", step.step_id)
    finish_step(
        t,
        step,
        "completed",
        output=output,
        data={
            "agentExecutionId": step.output.get("agentExecutionId"),
            "agentExecutionStatus": resolution,
            "decision": decision,
            "source": "resolution",
        },
    )
    return True, "resolved" if resolution == "resolved" else "rejected"


def _resolution_status(step: StepState) -> Literal["pending", "resolved", "rejected"]:
    if step.status == "waiting":
        return "pending"
    return "resolved" if step.output.get("decision") == "approve" else "rejected"
