"""Parallel groups: members end one by one; approvals count toward quorum (with every required
member among them), endings toward completion.

- `waitAll`: quorum is announced; each member fans out on its own; as an edge source the group
  takes one collective branch once every member has ended: approve if all approved, else reject.
- `cancelOnQuorum`: on quorum, the members still going are cancelled; members fan out on their
  own; the group's own approve branch fires on quorum.
- `joinOnQuorum`: on quorum, the others are cancelled and the group, not its members, fans out:
  one successor per target its members or the group lead to.

A group inside a loop body starts again from zero in each iteration: members of an earlier
iteration no longer count.
"""

from __future__ import annotations

from typing import Any

from redline.workflow.engine.expressions import evaluate
from redline.workflow.engine.graph import (
    CANCEL_ON_QUORUM,
    JOIN_ON_QUORUM,
    WAIT_ALL,
    ForwardEdge,
    GroupSpec,
)
from redline.workflow.engine.scheduling import schedule
from redline.workflow.engine.state import StepState
from redline.workflow.engine.transition import SYSTEM_GROUP_QUORUM, Transition

GROUPS = "groups"


def member_ended(t: Transition, step: StepState, group: GroupSpec) -> bool:
    """Count an ended member; True if the group routes the member's failure (it takes a branch
    as a whole, or its rejects loop), so that the failure alone does not fail the run."""
    state = t.state_of(GROUPS, group.group_id)
    routes_failures = _routes_failures(t, group)
    if step.iteration < state.get("iteration", 1):
        return routes_failures  # a member of an earlier loop iteration
    _count(state, step)
    if not state.get("quorumMet") and _quorum_reached(state, group):
        state["quorumMet"] = True
        _on_quorum(t, group, state, step.iteration)
    if state["completed"] >= group.expected_steps and not state.get("ended"):
        state["ended"] = True
        t.emit(
            "parallel-group.completed",
            None,
            {
                "groupId": group.group_id,
                "completedTotal": state["completed"],
                "approvedTotal": len(state["approved"]),
            },
        )
        if group.policy == WAIT_ALL:
            _fire_collective(t, group, state, step.iteration)
    return routes_failures


def restart(t: Transition, group: GroupSpec, iteration: int) -> None:
    """Fresh quorum state for a loop's next iteration."""
    t.execution.graph_state.setdefault(GROUPS, {})[group.group_id] = {"iteration": iteration}


def _routes_failures(t: Transition, group: GroupSpec) -> bool:
    return (
        group.policy == JOIN_ON_QUORUM
        or bool(t.graph.edges_from_group.get(group.group_id))
        or group.group_id in t.graph.loops_by_source
    )


def _count(state: dict[str, Any], step: StepState) -> None:
    state["completed"] = state.get("completed", 0) + 1
    approved: list[str] = state.setdefault("approved", [])
    if step.status == "completed" and step.output.get("decision") == "approve":
        approved.append(step.node_id)
    state.setdefault("outputs", {})[step.node_id] = step.output


def _quorum_reached(state: dict[str, Any], group: GroupSpec) -> bool:
    approved = state.get("approved", [])
    return len(approved) >= group.quorum and all(node in approved for node in group.required)


def _on_quorum(t: Transition, group: GroupSpec, state: dict[str, Any], iteration: int) -> None:
    t.emit(
        "group.quorum-met",
        None,
        {
            "groupId": group.group_id,
            "total": len(state["approved"]),
            "expectedSteps": group.expected_steps,
            "quorum": group.quorum,
            "completedTotal": state["completed"],
        },
    )
    if group.policy in (CANCEL_ON_QUORUM, JOIN_ON_QUORUM):
        for sibling in t.execution.active_steps():
            if sibling.group_id == group.group_id and sibling.node_id in group.members:
                t.cancel(sibling, SYSTEM_GROUP_QUORUM, "group-quorum-met")
                _count(state, sibling)
    if group.policy == JOIN_ON_QUORUM:
        _fire(t, group, _join_targets(t, group), _group_input(group, state), iteration)
    elif group.policy == CANCEL_ON_QUORUM:
        edges = t.graph.edges_from_group.get(group.group_id, [])
        targets = [e.target for e in edges if e.role in ("approve", "always")]
        _fire(t, group, targets, _group_input(group, state), iteration)


def _join_targets(t: Transition, group: GroupSpec) -> list[str]:
    """Every target the members lead to on anything but a reject (their rejects are dead under
    this policy), and the group's own approve and always edges, each once."""
    targets: list[str] = []
    for member in group.members:
        for edge in t.graph.edges_from_node.get(member, []):
            if edge.role != "reject" and edge.target not in targets:
                targets.append(edge.target)
    for edge in t.graph.edges_from_group.get(group.group_id, []):
        if edge.role in ("approve", "always") and edge.target not in targets:
            targets.append(edge.target)
    return targets


def _fire_collective(
    t: Transition, group: GroupSpec, state: dict[str, Any], iteration: int
) -> None:
    """A waitAll group's one branch, by unanimity, once every member has ended."""
    decision = "approve" if len(state["approved"]) >= group.expected_steps else "reject"
    group_input = {**_group_input(group, state), "decision": decision}
    context = {
        "execution": {"input": t.execution.trigger_context},
        "output": group_input,
        "step": {"groupId": group.group_id, "status": "completed"},
    }
    targets = [
        edge.target
        for edge in t.graph.edges_from_group.get(group.group_id, [])
        if _collective_fires(edge, decision, context)
    ]
    _fire(t, group, targets, group_input, iteration)


def _collective_fires(edge: ForwardEdge, decision: str, context: dict[str, Any]) -> bool:
    if edge.role == "always":
        return True
    if edge.role in ("approve", "reject"):
        return edge.role == decision
    return edge.role == "custom" and edge.when is not None and evaluate(edge.when, context)


def _group_input(group: GroupSpec, state: dict[str, Any]) -> dict[str, Any]:
    return {
        "groupOutputs": dict(state.get("outputs", {})),
        "groupId": group.group_id,
        "quorum": group.quorum,
        "totalApproved": len(state.get("approved", [])),
    }


def _fire(
    t: Transition,
    group: GroupSpec,
    targets: list[str],
    step_input: dict[str, Any],
    iteration: int,
) -> None:
    # Each target once, however many of the group's edges lead there.
    for target in dict.fromkeys(targets):
        schedule(
            t, target, f"group_{group.group_id}__to__{target}", step_input, iteration=iteration
        )
