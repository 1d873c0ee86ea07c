"""Requests and answers of the delivery endpoints."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

Id = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
Millis = Annotated[int, msgspec.Meta(ge=0, le=10**14)]
DeliveryState = Literal["pending", "sending", "succeeded", "failed"]


class ListDeliveries(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    status: DeliveryState | None = None
    eventTypes: Annotated[list[Id], msgspec.Meta(max_length=50)] | None = None
    createdAfter: Millis | None = None  # inclusive, ms
    createdBefore: Millis | None = None  # inclusive, ms
    pageSize: Annotated[int, msgspec.Meta(ge=1, le=500)] | None = None
    pageToken: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)] | None = None


class Attempt(msgspec.Struct, frozen=True):
    attempt: int
    startedAt: int  # ms
    statusCode: int | None
    latencyMs: float
    error: str | None


class Delivery(msgspec.Struct, frozen=True, kw_only=True):
    deliveryId: str  # the `webhook-id` header
    eventId: str
    eventType: str
    # raw or processed (basic webhooks), the endpoint id (advanced webhooks), workflow (execution
    # webhooks)
    target: str
    url: str
    status: DeliveryState
    attempts: int
    nextAttemptAt: int | None  # ms; while pending
    lastStatusCode: int | None
    lastError: str | None
    createdAt: int
    finishedAt: int | None
    attemptLog: list[Attempt]


class RetryDeliveries(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    deliveryIds: Annotated[list[Id], msgspec.Meta(min_length=1, max_length=100)]


class RetryResult(msgspec.Struct, frozen=True):
    success: bool
    message: str
