"""An execution as the engine changes it: its row and all its steps in memory, with what changed
since they were read, so that one transaction reads them once and writes the changes in a few
statements.

Every change of an execution happens under a lock on its row (see `executions.storage`), so the
state read at the start of a transaction is the state the changes apply to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

Json = dict[str, Any]

ACTIVE = frozenset({"pending", "running", "waiting"})
# A step in one of these fans out along its edges (a cancelled step never does).
ROUTABLE = frozenset({"completed", "skipped", "breached", "failed"})
TERMINAL_EXECUTION = frozenset({"completed", "failed", "cancelled"})

# The types getEvents returns and webhooks deliver; every other type is internal: it takes a seq
# and stays in the log.
VISIBLE_EVENTS = frozenset(
    {
        "execution.dispatched",
        "execution.completed",
        "execution.failed",
        "execution.cancelled",
        "step.awaiting-approval",
        "step.completed",
        "step.failed",
        "step.breached",
        "step.cancelled",
        "group.quorum-met",
        "loop.iteration-started",
        "loop.exhausted",
    }
)


@dataclass
class StepState:
    step_id: str
    position: int
    node_id: str
    node_type: str
    group_id: str | None
    iteration: int
    status: str
    input: Json
    output: Json
    error: Json | None
    responses: Json
    attempts: int
    failures: int
    created_at: int
    started_at: int | None = None
    completed_at: int | None = None
    # Not stored: whether the step is new in this transaction, or changed.
    new: bool = False
    changed: bool = False

    @property
    def active(self) -> bool:
        return self.status in ACTIVE


@dataclass(frozen=True)
class EventRecord:
    seq: int
    event_id: str
    type: str
    step_id: str | None
    timestamp: int
    data: Json | None
    # The execution's status once the event happened (what a webhook delivery reports).
    status: str

    @property
    def visible(self) -> bool:
        return self.type in VISIBLE_EVENTS


@dataclass(frozen=True)
class TaskChange:
    step_id: str
    kind: str  # run or deadline
    due_at_ms: int | None  # None: remove the task; for a held one, when its lease runs out
    # Set when the task is written already claimed, by the process numbered `holder`.
    claim_token: str | None = None
    holder: int | None = None


@dataclass
class ExecutionState:
    execution_id: str
    api_key: str
    workspace_id: str
    definition_id: str
    definition_uid: str
    definition_version: int
    status: str
    correlation_id: str
    idempotency_key: str | None
    trigger_context: Json
    organization_id: str | None
    document_id: str | None
    folder_id: str | None
    receiver_url: str | None
    receiver_event_types: list[str] | None
    graph_state: Json
    last_seq: int
    last_sent_seq: int
    step_count: int
    started_at: int
    completed_at: int | None = None
    cancelled_at: int | None = None
    failure_reason: Json | None = None
    steps: dict[str, StepState] = field(default_factory=dict)
    # Not stored: whether the row is new in this transaction.
    new: bool = False

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_EXECUTION

    def active_steps(self) -> list[StepState]:
        return [step for step in self.steps.values() if step.active]


# How much of a step's input a decision carries to memory as what was decided on.
REVIEWED_CONTENT_CHARS = 4000


def reviewed_content(step: StepState) -> str:
    """What a decision at `step` was about: the brief reviewers were given, then the step's
    input (the previous step's output) as compact JSON, shortened."""
    brief = step.output.get("commentBody")
    parts = [brief] if isinstance(brief, str) and brief else []
    if step.input:
        parts.append(msgspec.json.encode(step.input).decode())
    return "\n".join(parts)[:REVIEWED_CONTENT_CHARS]


@dataclass(frozen=True)
class DecisionNote:
    """A decision taken at a step, for memory to keep as a judgment."""

    kind: str  # reviewer or agent
    step_id: str
    node_id: str
    actor_id: str  # the reviewer's user id, or the agent's id
    decision: str  # approve or reject
    reason: str | None
    content: str | None = None
    agent_execution_id: str | None = None
    agent_fields: Json | None = None


@dataclass
class Changes:
    """What a transition did, for storage to write and for the outbox."""

    events: list[EventRecord] = field(default_factory=list)
    tasks: list[TaskChange] = field(default_factory=list)
    # Domain events beside the execution events (reviewer and agent decisions).
    decisions: list[DecisionNote] = field(default_factory=list)
