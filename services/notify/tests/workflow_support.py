"""Execution events, the workflow service's side of `rpc.workflow.receivers.get`, and what a
receiver checks of a signed request, for the workflow webhook tests."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from typing import Any

from nats.aio.client import Client
from standardwebhooks.webhooks import Webhook

from redline.bus import Bus, rpc
from redline.envelope.errors import NotFound
from redline.proto.events import ExecutionEventOut, ExecutionEventView, encode_event
from redline.proto.rpc import Receiver, ReceiverGet
from redline.proto.subjects import RPC_WORKFLOW_RECEIVER
from redline.testing.receiver import Received

SECRET = "receiver-secret-0123456789"
EXECUTION = "exec_1700000000000_a1b2c3"


def execution_event(
    seq: int,
    previous_seq: int,
    url: str,
    *,
    execution: str = EXECUTION,
    status: str = "running",
    event_type: str = "step.completed",
    step_id: str | None = "step_1",
    data: dict[str, Any] | None = None,
    timestamp_ms: int | None = None,
) -> ExecutionEventOut:
    """The event workflow publishes for the `seq`-th event of `execution`, which follows
    `previous_seq` at its receiver `url`."""
    return ExecutionEventOut(
        workspaceId="ws1",
        apiKey="key1",
        executionId=execution,
        definitionId="contract-review",
        status=status,
        event=ExecutionEventView(
            eventId=f"evt_{execution}_{seq}",
            seq=seq,
            type=event_type,
            stepId=step_id,
            timestamp=int(time.time() * 1000) if timestamp_ms is None else timestamp_ms,
            correlationId="corr-1",
            data={"decision": "approve"} if data is None else data,
        ),
        receiverUrl=url,
        previousSeq=previous_seq,
    )


async def publish(bus: Bus, *events: ExecutionEventOut) -> None:
    """Publish as workflow's outbox relay does, with the event id as the message id."""
    for event in events:
        await bus.js.publish(event.subject, encode_event(event), headers={"Nats-Msg-Id": event.id})


class WorkflowSide:
    """`rpc.workflow.receivers.get` as the workflow service answers it: the receiver of each
    execution it knows, NOT_FOUND for any other. Counts the questions per execution."""

    def __init__(self, receivers: Mapping[str, Receiver] | None = None) -> None:
        self.receivers = dict(receivers or {})
        self.asked: Counter[str] = Counter()

    async def get(self, request: ReceiverGet) -> Receiver:
        self.asked[request.executionId] += 1
        receiver = self.receivers.get(request.executionId)
        if receiver is None or (request.workspaceId, request.apiKey) != ("ws1", "key1"):
            raise NotFound("No such execution.")
        return receiver

    @contextlib.asynccontextmanager
    async def serving(self, nc: Client) -> AsyncIterator[None]:
        """Answer on this test's NATS server for the block."""
        subscription = await rpc.serve(nc, RPC_WORKFLOW_RECEIVER, ReceiverGet, self.get)
        try:
            yield
        finally:
            await subscription.unsubscribe()


def headers_of(received: Received) -> dict[str, str]:
    return {name.lower(): value for name, value in received.headers.items()}


def assert_signed(
    received: Received, secret: str = SECRET, brands: tuple[str, ...] = ("redline",)
) -> None:
    """Check the request as its receiver would: the brand signatures by recomputing the HMAC,
    the Standard Webhooks one with the `standardwebhooks` package."""
    headers = headers_of(received)
    digest = hmac.new(secret.encode(), received.body, hashlib.sha256).hexdigest()
    for brand in brands:
        assert headers[f"x-{brand}-signature"] == f"sha256={digest}"
    # The package reads a secret without the whsec_ prefix as base64 of the key.
    key = secret if secret.startswith("whsec_") else base64.b64encode(secret.encode()).decode()
    Webhook(key).verify(received.body, headers)
