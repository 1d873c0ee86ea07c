"""What the engine hands a node runner, and what the runner hands back.

A runner never touches the database: it does the node's side effect and returns a `NodeOutcome`,
which the engine records as the step's status, output and error, and as the `data` of the step
event it emits.

Failures come in two classes, also named in the event data as `retryClass`:
- terminal (`status="failed"`): trying again cannot help (a configuration error, a 4xx);
- retryable (`status="retry"`): the engine retries while the step has budget left, and records
  the last one as a failure with the same `error` and `data`.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

import msgspec

Json = dict[str, Any]
T = TypeVar("T")

TERMINAL = "terminal"
RETRYABLE = "retryable"

Status = Literal["completed", "failed", "waiting", "retry"]


class Callback(msgspec.Struct, frozen=True, kw_only=True):
    """Where a receiver or an agent runner reports the end of a step the engine parked in
    `waiting`: a POST to `url` with `token` in the `tokenHeader` header."""

    url: str
    token: str
    tokenHeader: str


class StepRun(msgspec.Struct, frozen=True, kw_only=True):
    """One attempt at one automatic step.

    `attempt` counts from 1. `input` is the previous step's output (or the loop's or group's
    input); `step` is the step's metadata as templates and predicates see it (`stepId`, `nodeId`,
    `status`, `retryCount`). `callback` is set for steps that may wait for one (async webhooks,
    agents).
    """

    apiKey: str
    workspaceId: str
    executionId: str
    definitionId: str
    correlationId: str
    stepId: str
    nodeId: str
    attempt: int
    triggerContext: Json
    input: Json
    step: Json
    webhookSecret: str | None = None
    organizationId: str | None = None
    documentId: str | None = None
    callback: Callback | None = None


class StepError(msgspec.Struct, frozen=True):
    """The step's `error` field: a short code (kebab-case) and a sentence for people."""

    code: str
    message: str


class NodeOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What came of one attempt.

    `data` is the `data` of the visible event the status leads to: `step.completed`,
    `step.awaiting-approval` (for `waiting`) or `step.failed` (for `failed`, and for `retry` once
    the budget is spent). `retry_after_s` is the delay the far side asked for, when it did; the
    engine's own backoff applies otherwise.
    """

    status: Status
    output: Json = msgspec.field(default_factory=dict)
    data: Json | None = None
    error: StepError | None = None
    retry_after_s: float | None = None


def completed(output: Json, data: Json) -> NodeOutcome:
    return NodeOutcome(status="completed", output=output, data=data)


def waiting(output: Json, data: Json) -> NodeOutcome:
    return NodeOutcome(status="waiting", output=output, data=data)


def failed(code: str, message: str, data: Json, output: Json | None = None) -> NodeOutcome:
    """A terminal failure: `data` should carry `retryClass: terminal` where the node type's
    event shape has one."""
    return NodeOutcome(
        status="failed", output=output or {}, data=data, error=StepError(code, message)
    )


def retry(
    code: str,
    message: str,
    data: Json,
    *,
    after_s: float | None = None,
    output: Json | None = None,
) -> NodeOutcome:
    return NodeOutcome(
        status="retry",
        output=output or {},
        data=data,
        error=StepError(code, message),
        retry_after_s=after_s,
    )


def misconfigured(code: str, message: str, **data: Any) -> NodeOutcome:
    """A terminal failure found before anything was sent (missing settings, an unusable
    configuration): its event data is `{reason}`, as for config-validation failures, with
    `retryClass` and the node type's own `data` keys beside it."""
    return failed(code, message, {"reason": code, "retryClass": TERMINAL, **data})


class DeliveryFailed(Exception):
    """A message could not be handed over: `code` and `message` become the step's error;
    `retryable` says whether another attempt may succeed, after `retry_after_s` if the far side
    asked for a delay. `unsendable` when the settings stopped it before anything was sent."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool,
        retry_after_s: float | None = None,
        unsendable: bool = False,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        self.retry_after_s = retry_after_s
        self.unsendable = unsendable


# Where a trigger carries webhook nodes' auth tokens (`webhookAuth[<nodeId>]`).
WEBHOOK_AUTH_KEY = "webhookAuth"


def shareable_context(trigger_context: Json) -> Json:
    """The trigger context without the webhook nodes' tokens: what a receiver, an agent or a
    message may see (each token is for one node's receiver only)."""
    if WEBHOOK_AUTH_KEY not in trigger_context:
        return trigger_context
    return {key: value for key, value in trigger_context.items() if key != WEBHOOK_AUTH_KEY}


def given(value: T | msgspec.UnsetType | None, default: T) -> T:
    """An optional config field's value, or `default` when it was left out."""
    if value is None or isinstance(value, msgspec.UnsetType):
        return default
    return value


# Longest Retry-After honoured: a far side asking for more is treated as asking for this, so
# a step never sleeps past what its retry schedule would allow anyway.
MAX_RETRY_AFTER_S = 15 * 60.0


def retry_after(value: str | None) -> float | None:
    """The delay a `Retry-After` header asks for, in seconds; None for an absent header or an
    HTTP date (the engine's backoff is close enough for those)."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    if seconds != seconds or seconds < 0:  # NaN or negative
        return None
    return min(seconds, MAX_RETRY_AFTER_S)
