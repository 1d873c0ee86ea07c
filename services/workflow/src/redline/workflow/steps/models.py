"""Requests and answers of /v2/workflow/steps/*.

A step is named by `executionId` and `stepId`, or by the `resumeKey` its
`step.awaiting-approval` event carried (a Redline extension)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from redline.envelope import Request

Id = Annotated[str, Meta(min_length=1, max_length=256)]
Actor = Annotated[str, Meta(min_length=1, max_length=256)]
Reason = Annotated[str, Meta(max_length=2000)]
Action = Literal[
    "force-approve",
    "force-reject",
    "force-complete",
    "force-fail",
    "reviewer-approve",
    "reviewer-reject",
]


class StepRequest(Request):
    # Stated in the schema too, so that a generated client asks for one way of naming the step.
    __openapi_any_of__ = (("executionId", "stepId"), ("resumeKey",))

    executionId: Id | None = None
    stepId: Id | None = None
    resumeKey: Annotated[str, Meta(min_length=1, max_length=600)] | None = None


class RecordReviewerDecision(StepRequest, kw_only=True):
    reviewerId: Id
    decision: Literal["approve", "reject"]
    reason: Reason | None = None


class RecordAgentResolution(StepRequest, kw_only=True):
    responseId: Annotated[str, Meta(min_length=1, max_length=200)]
    resolution: Literal["resolved", "rejected"]
    actorId: Actor
    reason: Reason | None = None


class AgentResolutionRecorded(msgspec.Struct, frozen=True):
    recorded: bool
    aggregatorStatus: Literal["pending", "resolved", "rejected"]
    resumeScheduled: bool


class ResolveStep(StepRequest, kw_only=True):
    action: Action
    actorId: Actor
    output: dict[str, Any] | None = None
    reason: Reason | None = None


class Resolved(msgspec.Struct, frozen=True):
    resolved: bool
    executionId: str
    stepId: str
    action: Action


class CancelStep(StepRequest, kw_only=True):
    actorId: Actor
    reason: Annotated[str, Meta(max_length=500)] | None = None


class CancelledStep(msgspec.Struct, frozen=True):
    cancelled: bool
    executionId: str
    stepId: str
