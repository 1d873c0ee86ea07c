"""Requests and answers of /v2/workflow/executions/*."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from redline.envelope import Request
from redline.proto.events import ExecutionEventView

Id = Annotated[str, Meta(min_length=1, max_length=256)]
# Idempotency keys and correlation ids: letters, digits, colon, underscore, hyphen, period.
Key = Annotated[str, Meta(pattern=r"^[A-Za-z0-9:_\-.]{1,200}\Z")]
ExecutionStatus = Literal["pending", "running", "completed", "failed", "cancelled"]
StepStatus = Literal[
    "pending", "running", "waiting", "completed", "failed", "skipped", "cancelled", "breached"
]
NodeType = Literal["human", "agent", "webhook", "notification"]


class DispatchExecution(Request):
    __openapi_requires__ = (("webhookUrl", "webhookSecret"), ("webhookSecret", "webhookUrl"))
    __openapi_rule__ = (
        "A definition scoped to an organization needs organizationId; one scoped to a document "
        "needs organizationId and documentId. webhookUrl is https (plain http only to hosts the "
        "operator allows) and its host is not a private, loopback or link-local address."
    )

    definitionId: Id
    idempotencyKey: Key | None = None
    correlationId: Key | None = None
    triggerContext: dict[str, Any] | None = None
    organizationId: Id | None = None
    documentId: Id | None = None
    folderId: Id | None = None
    webhookUrl: Annotated[str, Meta(min_length=1, max_length=2000)] | None = None
    webhookSecret: Annotated[str, Meta(min_length=16, max_length=512)] | None = None


class Dispatched(msgspec.Struct, frozen=True):
    executionId: str
    correlationId: str
    deduplicated: bool


class GetExecution(Request):
    executionId: Id


class ErrorView(msgspec.Struct, frozen=True):
    code: str
    message: str


class StepView(msgspec.Struct, frozen=True, kw_only=True):
    stepId: str
    nodeId: str
    nodeType: NodeType
    status: StepStatus
    groupId: str | None
    startedAt: int | None
    completedAt: int | None
    output: dict[str, Any]
    error: ErrorView | None


class ExecutionView(msgspec.Struct, frozen=True, kw_only=True):
    executionId: str
    status: ExecutionStatus
    startedAt: int
    completedAt: int | None
    cancelledAt: int | None
    definitionId: str
    definitionVersion: int
    correlationId: str
    idempotencyKey: str | None
    failureReason: ErrorView | None
    # Every step in the order it was made; empty in list items (get one execution for them).
    steps: list[StepView]


class ListExecutions(Request):
    definitionId: Id | None = None
    status: ExecutionStatus | None = None
    pageSize: Annotated[int, Meta(ge=1, le=500)] = 50
    cursor: Annotated[str, Meta(min_length=1, max_length=400)] | None = None


class ExecutionPage(msgspec.Struct, frozen=True):
    items: list[ExecutionView]
    nextCursor: str | None
    hasMore: bool


class CancelExecution(Request):
    executionId: Id
    reason: Annotated[str, Meta(max_length=500)] | None = None


class CancelledExecution(msgspec.Struct, frozen=True):
    cancelled: bool
    executionId: str


class GetEvents(Request):
    executionId: Id
    sinceSeq: Annotated[int, Meta(ge=0, le=2**31 - 1)] = 0
    pageSize: Annotated[int, Meta(ge=1, le=500)] = 100


class EventPage(msgspec.Struct, frozen=True):
    executionId: str
    events: list[ExecutionEventView]
    # The seq to pass as `sinceSeq` for the next page.
    nextCursor: int
    hasMore: bool
