"""Durable JetStream consumers: fetch a batch, hand each event to an idempotent handler, ack.

A handler that raises gets its message redelivered after a delay (JetStream may redeliver anyway),
so handlers must be idempotent: record the event id with `redline.pg.claim_event` in the same
transaction as the effect. Several instances with the same durable name share the work.

While a handler runs for one event, the request context (`redline.proto.request_context`) is that
of the event: the request id its `Redline-Request-Id` header carries and its workspace. So the
handler's log lines, and the events it writes in turn, name the request that started it all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import ClassVar, Generic, TypeVar

import msgspec
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import BadRequestError
from prometheus_client import Counter, Gauge

from redline.bus.cancellation import raise_if_cancel_was_swallowed
from redline.bus.pull import Puller, give_back
from redline.proto import request_context
from redline.proto.events import Event, decode_event
from redline.proto.subjects import STREAM, STREAM_SUBJECTS

log = logging.getLogger("redline.bus.consumer")

CONSUMER_PENDING = Gauge(
    "redline_consumer_pending",
    "Events on the stream that a durable consumer has not been handed yet (its lag), as of "
    "its last fetch.",
    ("consumer",),
)
CONSUMER_REDELIVERIES = Counter(
    "redline_consumer_redeliveries",
    "Events handed to a consumer again (a handler failed, or its ack came too late).",
    ("consumer",),
)
CONSUMER_UNDECODABLE = Counter(
    "redline_consumer_undecodable",
    "Events a consumer could not decode and dropped.",
    ("consumer",),
)
# At most one log line per consumer per this many seconds about undecodable events: a stream full
# of them must not flood the log.
UNDECODABLE_LOG_INTERVAL_S = 60.0

EventHandler = Callable[[Event], Awaitable[None]]
BatchHandler = Callable[[list[Event]], Awaitable[None]]
# What a consumer hands its events to: one event, or one fetch's events at once.
H = TypeVar("H")

# How long one pull request waits on the server for messages; also how soon a consumer notices
# that its pull request died with a restarted server.
FETCH_TIMEOUT_S = 1.0
RESTART_DELAY_S = 0.5


def _serving_event(message: Msg, event: Event) -> contextlib.AbstractContextManager[None]:
    """The request context of `event` for the block: its request id and its workspace."""
    headers = message.headers or {}
    return request_context.serving(
        headers.get(request_context.REQUEST_ID_HEADER), event.workspaceId or None
    )


class _Consumer(Generic[H]):
    """Fetching, acking and surviving restarts; subclasses say how a fetch is handled by
    `handler`."""

    # Messages asked for per pull request, unless the caller says otherwise.
    default_batch_size: ClassVar[int] = 100

    def __init__(
        self,
        js: JetStreamContext,
        durable: str,
        handler: H,
        *,
        filter_subjects: list[str] | None = None,
        batch_size: int | None = None,
        ack_wait_s: float = 30.0,
        retry_delay_s: float = 1.0,
        max_deliver: int = -1,
    ) -> None:
        self._js = js
        self._durable = durable
        self._handler: H = handler
        self._filter = list(filter_subjects or STREAM_SUBJECTS)
        self._batch_size = batch_size or self.default_batch_size
        self._ack_wait_s = ack_wait_s
        self._retry_delay_s = retry_delay_s
        self._max_deliver = max_deliver
        self._undecodable_since_log = 0
        self._undecodable_logged_at = -UNDECODABLE_LOG_INTERVAL_S

    def _config(self) -> ConsumerConfig:
        single = len(self._filter) == 1
        return ConsumerConfig(
            name=self._durable,
            durable_name=self._durable,
            ack_policy=AckPolicy.EXPLICIT,
            deliver_policy=DeliverPolicy.ALL,
            ack_wait=self._ack_wait_s,
            max_deliver=self._max_deliver,
            filter_subject=self._filter[0] if single else None,
            filter_subjects=None if single else self._filter,
            max_ack_pending=10_000,
        )

    async def run(self) -> None:
        """Consume until cancelled; survives NATS restarts and a deleted consumer."""
        while True:
            try:
                await self._consume()
            except Exception as exc:
                log.warning("consumer %s stopped (%s); restarting", self._durable, exc)
                await asyncio.sleep(RESTART_DELAY_S)

    async def _consume(self) -> None:
        await self._ensure_consumer()
        raise_if_cancel_was_swallowed()
        # nats-py keeps the client and the API prefix private on the JetStream context; the
        # puller needs both to send pull requests itself (see redline.bus.pull). nats-py is
        # pinned below its next minor release, and a test in test_consumer.py fails when these
        # attributes go or change.
        puller = Puller(self._js._nc, STREAM, self._durable, self._js._prefix)
        await puller.start()
        try:
            while True:
                try:
                    messages = await puller.fetch(self._batch_size, FETCH_TIMEOUT_S)
                except TimeoutError:
                    raise_if_cancel_was_swallowed()
                    continue
                # Messages in hand are handled first: left unacknowledged, they would wait out
                # their ack wait before another consumer got them.
                self._measure(messages)
                try:
                    await self._handle_fetched(messages)
                except asyncio.CancelledError:
                    # Stopped mid-batch: what is not acknowledged goes back for the next
                    # instance (handlers take a redelivered event as any other).
                    await give_back(messages)
                    raise
                raise_if_cancel_was_swallowed()
        finally:
            # An open subscription makes a later drain() hang, and its inbox would keep
            # interest in a pull request the server still holds: close it first.
            with contextlib.suppress(Exception):
                await puller.stop()

    async def _ensure_consumer(self) -> None:
        """Create the durable consumer, or bring it to this configuration (idempotent).

        JetStream's create request creates or updates, so replicas starting together agree and a
        changed filter takes effect. A change the server cannot make in place (for example the
        deliver policy) is logged and the existing consumer is used as it is.
        """
        try:
            await self._js.add_consumer(STREAM, self._config())
        except BadRequestError as exc:
            log.error("consumer %s keeps its old configuration: %s", self._durable, exc)

    async def _handle_fetched(self, messages: list[Msg]) -> None:
        raise NotImplementedError

    def _measure(self, messages: list[Msg]) -> None:
        redelivered = 0
        for message in messages:
            with contextlib.suppress(Exception):  # a message without JetStream metadata
                redelivered += message.metadata.num_delivered > 1
        if redelivered:
            CONSUMER_REDELIVERIES.labels(self._durable).inc(redelivered)
        with contextlib.suppress(Exception):
            CONSUMER_PENDING.labels(self._durable).set(messages[-1].metadata.num_pending)

    async def _decode(self, message: Msg) -> Event | None:
        try:
            return decode_event(message.data)
        except msgspec.DecodeError:
            # Redelivering cannot help a payload no code here understands; terminate it so it
            # neither blocks nor returns.
            await message.term()
            self._count_undecodable(message.subject)
            return None

    def _count_undecodable(self, subject: str) -> None:
        CONSUMER_UNDECODABLE.labels(self._durable).inc()
        self._undecodable_since_log += 1
        now = time.monotonic()
        if now - self._undecodable_logged_at >= UNDECODABLE_LOG_INTERVAL_S:
            log.error(
                "consumer %s: dropped %d undecodable event(s), the last on %s",
                self._durable,
                self._undecodable_since_log,
                subject,
            )
            self._undecodable_since_log = 0
            self._undecodable_logged_at = now


class DurableConsumer(_Consumer[EventHandler]):
    """Hands each event to `handler` and acks it once the handler returned."""

    async def _handle_fetched(self, messages: list[Msg]) -> None:
        for message in messages:
            await self._handle(message)

    async def _handle(self, message: Msg) -> None:
        event = await self._decode(message)
        if event is None:
            return
        with _serving_event(message, event):
            try:
                await self._handler(event)
            except Exception:
                log.exception(
                    "consumer %s: handler failed for %s; will retry", self._durable, event.id
                )
                await message.nak(delay=self._retry_delay_s)
                return
        await message.ack()


class BatchConsumer(_Consumer[BatchHandler]):
    """A durable consumer whose handler takes every event of one fetch at once, so that it can
    write them in one statement. The handler must be idempotent for the whole batch.

    A batch that fails is handled again event by event, in stream order: one event that always
    fails (a bug, or data no code here can handle) is then retried alone, and does not hold back
    the events fetched with it at every redelivery. Once a few in a row fail alone too, the
    failure is taken for one of every event (say, PostgreSQL is down): the rest of the batch is
    given back untried, rather than fail one by one.

    A batch's events may come from as many requests and workspaces: the request context is set
    only for an event handled alone (a batch of one, or one retried alone), and left unset for a
    batch of several, where any one event's id would mislabel the others' log lines and events.
    A handler that needs it per event reads it from the event's own fields."""

    default_batch_size = 500
    # Events in a row that fail alone before the rest of their batch is given back untried.
    ALONE_FAILURES_IN_A_ROW = 3

    async def _handle_fetched(self, messages: list[Msg]) -> None:
        decoded = [(message, await self._decode(message)) for message in messages]
        batch = [(message, event) for message, event in decoded if event is not None]
        if not batch:
            return
        if len(batch) == 1:
            await self._handle_one(*batch[0])
            return
        # Several events: no one request's context (see the class's docstring).
        with request_context.serving(None):
            try:
                await self._handler([event for _, event in batch])
            except Exception:
                log.exception("consumer %s: batch of %d failed", self._durable, len(batch))
                await self._handle_alone(batch)
                return
        for message, _ in batch:
            await message.ack()

    async def _handle_one(self, message: Msg, event: Event) -> None:
        with _serving_event(message, event):
            try:
                await self._handler([event])
            except Exception:
                log.exception("consumer %s: handler failed for %s", self._durable, event.id)
                await message.nak(delay=self._retry_delay_s)
                return
        await message.ack()

    async def _handle_alone(self, batch: list[tuple[Msg, Event]]) -> None:
        in_a_row = failed = 0
        for position, (message, event) in enumerate(batch):
            if in_a_row == self.ALONE_FAILURES_IN_A_ROW:
                for untried, _ in batch[position:]:
                    await untried.nak(delay=self._retry_delay_s)
                failed += len(batch) - position
                break
            with _serving_event(message, event):
                try:
                    await self._handler([event])
                except Exception as exc:
                    in_a_row, failed = in_a_row + 1, failed + 1
                    log.warning("consumer %s: event %s failed (%r)", self._durable, event.id, exc)
                    await message.nak(delay=self._retry_delay_s)
                    continue
            in_a_row = 0
            await message.ack()
        if failed:
            log.warning(
                "consumer %s: %d of %d events will be retried", self._durable, failed, len(batch)
            )
