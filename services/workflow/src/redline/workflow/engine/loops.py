"""Loop regions: a mandatory reviewer's reject at a loop's source (a node, or a joinOnQuorum
group) sends the run back to the loop's entry, up to `maxIterations`; at the cap the loop is
exhausted and the run takes the `exhausted` route, or fails if there is none.

Each iteration cancels what still runs of the previous one, starts the body's groups from zero,
and hands the entry step what the earlier attempts were and why they were rejected.
"""

from __future__ import annotations

from typing import Any

from redline.workflow.engine import groups
from redline.workflow.engine.graph import LoopSpec
from redline.workflow.engine.scheduling import schedule
from redline.workflow.engine.state import StepState
from redline.workflow.engine.transition import (
    SYSTEM_LOOP_RESTART,
    Transition,
    successor_step_id,
)

LOOPS = "loops"


def take_reject(t: Transition, step: StepState) -> bool:
    """Iterate or exhaust the loop this step's reject belongs to; False if it belongs to none
    (then the step's own edges route it)."""
    loop = _loop_of(t, step)
    if loop is None or step.status != "completed":
        return False
    output = step.output
    # The loop predicate: a reject by a mandatory reviewer.
    if output.get("decision") != "reject" or output.get("rejectorMandatory") is not True:
        return False
    state = t.state_of(LOOPS, loop.loop_id)
    iteration: int = state.get("iteration", 1)
    if step.iteration < iteration:
        return True  # a step of an iteration already left behind
    attempts: list[dict[str, Any]] = state.setdefault("previousAttempts", [])
    attempts.append(_attempt(t, loop, step, iteration))
    if iteration < loop.max_iterations:
        _next_iteration(t, loop, step, state, iteration + 1)
    else:
        _exhaust(t, loop, step, iteration)
    return True


def _loop_of(t: Transition, step: StepState) -> LoopSpec | None:
    loop = t.graph.loops_by_source.get(step.node_id)
    if loop is not None:
        return loop
    group = t.graph.group_of.get(step.node_id)
    if group is None:
        return None
    return t.graph.loops_by_source.get(group.group_id)


def _attempt(t: Transition, loop: LoopSpec, step: StepState, iteration: int) -> dict[str, Any]:
    """The iteration as the next one sees it: what the loop's entry produced, and the reject."""
    entry_steps = [
        s
        for s in t.execution.steps.values()
        if s.node_id == loop.entry and s.iteration == iteration and s.status == "completed"
    ]
    author = max(entry_steps, key=lambda s: s.position) if entry_steps else None
    return {
        "iteration": iteration,
        "authorOutput": author.output if author else {},
        "rejectedBy": step.output.get("rejectedBy"),
        "rejectorMandatory": True,
        "rejectionReason": step.output.get("rejectionReason"),
        "rejectedAt": t.now,
    }


def _next_iteration(
    t: Transition, loop: LoopSpec, step: StepState, state: dict[str, Any], iteration: int
) -> None:
    for active in t.execution.active_steps():
        if active.node_id in loop.body:
            t.cancel(active, SYSTEM_LOOP_RESTART, "loop-restart")
    state["iteration"] = iteration
    t.emit(
        "loop.iteration-started",
        step.step_id,
        {"loopId": loop.loop_id, "iteration": iteration, "triggeredBy": "rejection"},
    )
    for group in t.graph.groups.values():
        if any(member in loop.body for member in group.members):
            groups.restart(t, group, iteration)
    schedule(
        t,
        loop.entry,
        successor_step_id(step.step_id, loop.entry),
        {
            "iteration": iteration,
            "loopId": loop.loop_id,
            "previousAttempts": list(state["previousAttempts"]),
        },
        iteration=iteration,
    )


def _exhaust(t: Transition, loop: LoopSpec, step: StepState, iteration: int) -> None:
    t.emit(
        "loop.exhausted",
        step.step_id,
        {
            "loopId": loop.loop_id,
            "iteration": iteration,
            "lastRejectedBy": step.output.get("rejectedBy"),
            "lastRejectionReason": step.output.get("rejectionReason"),
        },
    )
    if loop.on_exhausted is None:
        t.fail_execution(
            "loop-exhausted",
            f"loop {loop.loop_id} reached maxIterations ({loop.max_iterations}) and has no "
            "exhausted route",
        )
        return
    state = t.state_of(LOOPS, loop.loop_id)
    schedule(
        t,
        loop.on_exhausted,
        successor_step_id(step.step_id, loop.on_exhausted),
        {
            "iteration": iteration,
            "loopId": loop.loop_id,
            "previousAttempts": list(state.get("previousAttempts", [])),
        },
        iteration=step.iteration,
    )
