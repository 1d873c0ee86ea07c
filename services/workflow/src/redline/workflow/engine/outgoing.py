"""What a transition sends beyond its own tables: each visible event bound for the execution's
webhook receiver, and the decisions memory keeps as judgments.

Events for the receiver carry the seq of the one sent before (`previousSeq`), which lets the
notify service keep them in order whatever order the stream brings them in.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from redline.proto.events import (
    AgentDecisionRecorded,
    Event,
    ExecutionEventOut,
    ExecutionEventView,
    ReviewerDecisionRecorded,
)
from redline.workflow.engine.state import Changes, DecisionNote, EventRecord, ExecutionState


def outgoing_events(state: ExecutionState, changes: Changes) -> list[Event]:
    """The events to publish for `changes`; advances the execution's `last_sent_seq`."""
    events: list[Event] = []
    if state.receiver_url is not None:
        for record in changes.events:
            if _bound_for_receiver(state, record):
                events.append(_event_out(state, record, state.receiver_url))
                state.last_sent_seq = record.seq
    events.extend(_decision(state, note) for note in changes.decisions)
    return events


class EventFields(Protocol):
    """What an event view is made of: a logged event, or one being written."""

    @property
    def event_id(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def step_id(self) -> str | None: ...
    @property
    def timestamp(self) -> int: ...
    @property
    def data(self) -> dict[str, Any] | None: ...


def event_view(record: EventFields, correlation_id: str) -> ExecutionEventView:
    """An event as getEvents returns it and webhooks deliver it."""
    return ExecutionEventView(
        eventId=record.event_id,
        seq=record.seq,
        type=record.type,
        stepId=record.step_id,
        timestamp=record.timestamp,
        correlationId=correlation_id,
        data=record.data,
    )


def _bound_for_receiver(state: ExecutionState, record: EventRecord) -> bool:
    if not record.visible:
        return False
    return state.receiver_event_types is None or record.type in state.receiver_event_types


def _event_out(state: ExecutionState, record: EventRecord, url: str) -> ExecutionEventOut:
    return ExecutionEventOut(
        workspaceId=state.workspace_id,
        apiKey=state.api_key,
        executionId=state.execution_id,
        definitionId=state.definition_id,
        status=record.status,
        event=event_view(record, state.correlation_id),
        receiverUrl=url,
        previousSeq=state.last_sent_seq,
    )


def _decision(state: ExecutionState, note: DecisionNote) -> Event:
    """The domain event of a decision: the fields every decision carries, and the reviewer's or
    the agent's own."""
    fields: dict[str, Any] = {
        "workspaceId": state.workspace_id,
        "apiKey": state.api_key,
        "executionId": state.execution_id,
        "definitionId": state.definition_id,
        "stepId": note.step_id,
        "nodeId": note.node_id,
        "correlationId": state.correlation_id,
        "organizationId": state.organization_id,
        "documentId": state.document_id,
        "decision": note.decision,
        "reason": note.reason,
        "reviewedContent": note.content,
    }
    if note.kind == "reviewer":
        return msgspec.convert({**fields, "reviewerId": note.actor_id}, ReviewerDecisionRecorded)
    agent = {
        "agentId": note.actor_id,
        "agentExecutionId": note.agent_execution_id,
        "agentFields": note.agent_fields,
    }
    return msgspec.convert({**fields, **agent}, AgentDecisionRecorded)
