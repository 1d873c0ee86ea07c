"""What happens when a step ends: its group counts it, a loop may take its reject, its edges
fan out, a failure nothing routes fails the run, and a run with nothing left to do completes."""

from __future__ import annotations

from typing import Any

from redline.workflow.engine import groups, loops
from redline.workflow.engine.expressions import evaluate
from redline.workflow.engine.graph import JOIN_ON_QUORUM, ForwardEdge
from redline.workflow.engine.scheduling import schedule
from redline.workflow.engine.state import ROUTABLE, Json, StepState
from redline.workflow.engine.transition import Transition, successor_step_id

# The visible event each ending of a step is told by.
_EVENT_OF_STATUS = {
    "completed": "step.completed",
    "failed": "step.failed",
    "breached": "step.breached",
}


def finish_step(
    t: Transition,
    step: StepState,
    status: str,
    *,
    output: Json,
    data: Json | None,
    error: Json | None = None,
) -> None:
    """End an active step with `status` (completed, failed or breached) and route it."""
    step.output = output
    step.error = error
    t.set_status(step, status)
    t.drop_tasks(step)
    t.emit(_EVENT_OF_STATUS[status], step.step_id, data)
    route(t, step)


def route(t: Transition, step: StepState) -> None:
    """Route a step that has just ended (cancelled included: its group counts it)."""
    if t.execution.terminal:
        return
    # A joinOnQuorum group fans out for its members; a group that routes as a whole (or loops)
    # also routes its members' failures.
    own_edges = group_routes_failures = False
    group = t.graph.group_of.get(step.node_id)
    if group is not None and step.group_id == group.group_id:
        group_routes_failures = groups.member_ended(t, step, group)
        own_edges = group.policy == JOIN_ON_QUORUM
    if t.ended():
        return
    fired = loops.take_reject(t, step)
    if not fired and not own_edges and step.status in ROUTABLE:
        fired = fan_out(t, step)
    if step.status in ("failed", "breached") and not fired and not group_routes_failures:
        t.fail_execution(
            f"step-{step.status}",
            f"step {step.step_id} {step.status} and no edge routes it",
        )
        return
    t.complete_if_done()


def fan_out(t: Transition, step: StepState) -> bool:
    """Schedule a successor for each node an edge of the step's node leads to and fires on;
    True if any did. A node that several of the edges lead to gets one step, as its id
    (`<step>__to__<node>`) names one: repeated edges never multiply the run."""
    context = predicate_context(t, step)
    targets: list[str] = []
    for edge in t.graph.edges_from_node.get(step.node_id, []):
        if edge.target not in targets and edge_fires(edge, step.status, context):
            targets.append(edge.target)
    for target in targets:
        schedule(
            t,
            target,
            successor_step_id(step.step_id, target),
            step.output,
            iteration=step.iteration,
        )
    return bool(targets)


def edge_fires(edge: ForwardEdge, status: str, context: dict[str, Any]) -> bool:
    """`always` fires on every status a step fans out on; `approve` and `reject` on a completed
    step's decision; `custom` on its predicate, whatever the status (so it can test a breach)."""
    if status not in ROUTABLE:
        return False
    if edge.role == "always":
        return True
    if edge.role in ("approve", "reject"):
        if status != "completed":
            return False
        if edge.when is None:
            return bool(context["output"].get("decision") == edge.role)
        return evaluate(edge.when, context)
    if edge.role == "custom":
        return edge.when is not None and evaluate(edge.when, context)
    return False


def predicate_context(t: Transition, step: StepState) -> dict[str, Any]:
    """The roots a `when` predicate reads: `execution.input`, `output` and `step`."""
    return {
        "execution": {"input": t.execution.trigger_context},
        "output": step.output,
        "step": step_metadata(step),
    }


def step_metadata(step: StepState) -> Json:
    return {
        "stepId": step.step_id,
        "nodeId": step.node_id,
        "status": step.status,
        "retryCount": step.failures,
    }
