"""One change of one execution: the primitives every engine rule is written in.

A `Transition` holds the execution (its row and steps, read under the row's lock), the graph of
its pinned version and the time of the change, and records what it does: events with their seq
numbers, steps made or changed, tasks to add or remove, decisions for memory. Nothing here
touches the database; `executions.storage` writes the result.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from redline.proto.events import new_event_id
from redline.workflow.engine.graph import Graph
from redline.workflow.engine.state import (
    Changes,
    EventRecord,
    ExecutionState,
    Json,
    StepState,
    TaskChange,
)

# Step ids grow by one hop per edge taken; past this length an id is a digest of its parts.
MAX_STEP_ID = 200
# Actors the engine itself names when it cancels a step.
SYSTEM_GROUP_QUORUM = "system:group-quorum"
SYSTEM_LOOP_RESTART = "system:loop-restart"
SYSTEM_EXECUTION_CANCEL = "system:execution-cancel"
SYSTEM_EXECUTION_FAILED = "system:execution-failed"

RESUME_KEY_PREFIX = "human:"


def resume_key(execution_id: str, step_id: str) -> str:
    """The handle `step.awaiting-approval` gives a human step: both ids, so it can stand for
    them in the step endpoints. Execution ids hold no colon."""
    return f"{RESUME_KEY_PREFIX}{execution_id}:{step_id}"


def parse_resume_key(key: str) -> tuple[str, str] | None:
    if not key.startswith(RESUME_KEY_PREFIX):
        return None
    execution_id, sep, step_id = key.removeprefix(RESUME_KEY_PREFIX).partition(":")
    return (execution_id, step_id) if sep and execution_id and step_id else None


def root_step_id(node_id: str, now_ms: int) -> str:
    return f"step_{node_id}_{now_ms}_{secrets.token_hex(3)}"


def successor_step_id(parent: str, child_node: str) -> str:
    """`<parent>__to__<child>`, as the hosted product names fan-out steps; a chain too long for
    that (many loop iterations) gets a digest of the same parts, which is just as stable."""
    step_id = f"{parent}__to__{child_node}"
    if len(step_id) <= MAX_STEP_ID:
        return step_id
    digest = hashlib.sha256(step_id.encode()).hexdigest()[:16]
    return f"step_{child_node}_{digest}"


class Transition:
    def __init__(
        self, execution: ExecutionState, graph: Graph, now_ms: int, *, max_steps: int
    ) -> None:
        self.execution = execution
        self.graph = graph
        self.now = now_ms
        # The most steps the execution may make (REDLINE_MAX_STEPS_PER_EXECUTION).
        self.max_steps = max_steps
        self.changes = Changes()

    # Events.

    def emit(self, type_: str, step_id: str | None = None, data: Json | None = None) -> None:
        execution = self.execution
        execution.last_seq += 1
        self.changes.events.append(
            EventRecord(
                seq=execution.last_seq,
                event_id=new_event_id(),
                type=type_,
                step_id=step_id,
                timestamp=self.now,
                data=data,
                status=execution.status,
            )
        )

    # Steps.

    def new_step(
        self,
        node_id: str,
        step_id: str,
        step_input: Json,
        *,
        iteration: int,
        group_id: str | None,
    ) -> StepState:
        execution = self.execution
        # An id taken already (a loop's entry made again from the same parent, a node reached
        # along two paths that end in the same ids) gets a suffix.
        base, n = step_id, 1
        while step_id in execution.steps:
            n += 1
            step_id = f"{base}~{n}"
        execution.step_count += 1
        step = StepState(
            step_id=step_id,
            position=execution.step_count,
            node_id=node_id,
            node_type=self.graph.node_type(node_id),
            group_id=group_id,
            iteration=iteration,
            status="pending",
            input=step_input,
            output={},
            error=None,
            responses={},
            attempts=0,
            failures=0,
            created_at=self.now,
            new=True,
        )
        execution.steps[step_id] = step
        return step

    def set_status(self, step: StepState, status: str) -> None:
        step.status = status
        step.changed = True
        if status == "running" or status == "waiting":
            step.started_at = step.started_at or self.now
        elif status not in ("pending",):
            step.completed_at = self.now

    def add_task(self, step: StepState, kind: str, due_at_ms: int) -> None:
        self.changes.tasks.append(TaskChange(step.step_id, kind, due_at_ms))

    def hold_task(
        self, step: StepState, kind: str, lease_until_ms: int, claim_token: str, holder: int
    ) -> None:
        """Write the task already claimed under `claim_token` by the process `holder`, as a
        claim from the queue would leave it."""
        self.changes.tasks.append(
            TaskChange(step.step_id, kind, lease_until_ms, claim_token, holder)
        )

    def drop_task(self, step: StepState, kind: str) -> None:
        self.changes.tasks.append(TaskChange(step.step_id, kind, None))

    def drop_tasks(self, step: StepState) -> None:
        for kind in ("run", "deadline"):
            self.drop_task(step, kind)

    def cancel(self, step: StepState, actor_id: str, reason: str | None) -> None:
        self.set_status(step, "cancelled")
        self.drop_tasks(step)
        self.emit("step.cancelled", step.step_id, {"actorId": actor_id, "reason": reason})

    # The execution.

    def state_of(self, section: str, key: str) -> dict[str, Any]:
        """The run's mutable state of one group or loop (`graph_state[section][key]`)."""
        states: dict[str, Any] = self.execution.graph_state.setdefault(section, {})
        state: dict[str, Any] = states.setdefault(key, {})
        return state

    def ended(self) -> bool:
        """Whether the execution has ended (a rule may end it part way through)."""
        return self.execution.terminal

    def fail_execution(self, code: str, message: str) -> None:
        """End the run as failed: whatever still runs is cancelled first, so the log shows
        every step ending."""
        execution = self.execution
        if execution.terminal:
            return
        for step in execution.active_steps():
            self.cancel(step, SYSTEM_EXECUTION_FAILED, "execution-failed")
        execution.status = "failed"
        execution.completed_at = self.now
        execution.failure_reason = {"code": code, "message": message}
        self.emit("execution.failed")

    def complete_if_done(self) -> None:
        """A running execution whose steps have all ended is completed."""
        execution = self.execution
        if execution.terminal or execution.active_steps():
            return
        execution.status = "completed"
        execution.completed_at = self.now
        self.emit("execution.completed")
