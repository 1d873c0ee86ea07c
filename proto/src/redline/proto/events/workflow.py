"""Events of the workflow service.

`ExecutionEventOut` carries one externally visible execution event to the execution's webhook
receiver: workflow writes it in the transaction that made the event, notify turns it into a
delivery. The receiver's secret never travels on the stream; notify asks workflow for it
(`rpc.workflow.receivers.get`) when it signs a request.

The decision events are domain events for memory, which records them as judgments.
"""

from __future__ import annotations

from typing import Any

import msgspec

from redline.proto.events.base import Event


class ExecutionEventView(msgspec.Struct, frozen=True, kw_only=True):
    """One execution event exactly as `/v2/workflow/executions/getEvents` returns it."""

    eventId: str
    seq: int
    type: str
    stepId: str | None
    timestamp: int  # ms since the epoch
    correlationId: str
    data: dict[str, Any] | None


class ExecutionEventOut(Event, tag="workflow.execution.event", frozen=True, kw_only=True):
    """A visible execution event bound for the execution's webhook receiver."""

    apiKey: str
    executionId: str
    definitionId: str
    # The execution's status once the event happened.
    status: str
    event: ExecutionEventView
    receiverUrl: str
    # The seq of the event sent to this receiver before this one (0 for the first): a receiver
    # never gets an event before the one it follows has been answered or given up on.
    previousSeq: int


class WorkflowDecision(Event, frozen=True, kw_only=True):
    """A decision taken at a step of an execution."""

    apiKey: str
    executionId: str
    definitionId: str
    stepId: str
    nodeId: str
    correlationId: str
    organizationId: str | None = None
    documentId: str | None = None
    decision: str  # approve or reject
    reason: str | None = None
    # What was decided on, as text: the reviewer's brief and the step's input, shortened.
    reviewedContent: str | None = None


class ReviewerDecisionRecorded(
    WorkflowDecision, tag="workflow.reviewer_decision.recorded", frozen=True, kw_only=True
):
    """A reviewer's approve or reject at a human step (recordReviewerDecision, or resolve with a
    reviewer action)."""

    reviewerId: str
    reviewerName: str | None = None
    reviewerEmail: str | None = None


class AgentDecisionRecorded(
    WorkflowDecision, tag="workflow.agent_decision.recorded", frozen=True, kw_only=True
):
    """An agent step's outcome: what its agent decided, or a resolution recorded for it."""

    agentId: str
    agentExecutionId: str | None = None
    # Fields of the agent's output worth keeping beside the decision (its summary).
    agentFields: dict[str, Any] | None = None
