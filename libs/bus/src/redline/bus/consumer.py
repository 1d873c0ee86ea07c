"""Durable JetStream consumers: fetch a batch, hand each event to an idempotent handler, ack.

A handler that raises gets its message redelivered after a delay (JetStream may redeliver anyway),
so handlers must be idempotent: record the event id with `redline.pg.claim_event` in the same
transaction as the effect.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import msgspec
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import FetchTimeoutError

from redline.proto.events import Event, decode_event
from redline.proto.subjects import STREAM

log = logging.getLogger("redline.bus.consumer")

EventHandler = Callable[[Event], Awaitable[None]]


class DurableConsumer:
    def __init__(
        self,
        js: JetStreamContext,
        durable: str,
        handler: EventHandler,
        *,
        filter_subjects: list[str] | None = None,
        batch_size: int = 100,
        ack_wait_s: float = 30.0,
        retry_delay_s: float = 1.0,
        max_deliver: int = -1,
    ) -> None:
        self._js = js
        self._durable = durable
        self._handler = handler
        self._filter = filter_subjects or ["evt.>"]
        self._batch_size = batch_size
        self._ack_wait_s = ack_wait_s
        self._retry_delay_s = retry_delay_s
        self._max_deliver = max_deliver

    def _config(self) -> ConsumerConfig:
        single = len(self._filter) == 1
        return ConsumerConfig(
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
        """Consume until cancelled; survives NATS restarts by re-subscribing."""
        while True:
            try:
                await self._consume()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("consumer %s stopped (%s); restarting", self._durable, exc)
                await asyncio.sleep(0.5)

    async def _consume(self) -> None:
        subscription = (
            await self._js.pull_subscribe_bind(durable=self._durable, stream=STREAM)
            if await self._exists()
            else await self._js.pull_subscribe(
                self._filter[0], durable=self._durable, stream=STREAM, config=self._config()
            )
        )
        try:
            while True:
                try:
                    messages = await subscription.fetch(self._batch_size, timeout=1.0)
                except (FetchTimeoutError, NatsTimeoutError, TimeoutError):
                    continue
                for message in messages:
                    await self._handle(message)
        finally:
            # An open pull subscription makes a later drain() hang: close it first.
            await subscription.unsubscribe()

    async def _exists(self) -> bool:
        try:
            await self._js.consumer_info(STREAM, self._durable)
        except Exception:
            return False
        return True

    async def _handle(self, message: object) -> None:
        from nats.aio.msg import Msg

        assert isinstance(message, Msg)
        try:
            event = decode_event(message.data)
        except msgspec.DecodeError:
            log.error(
                "consumer %s: undecodable event on %s; dropped", self._durable, message.subject
            )
            await message.term()
            return
        try:
            await self._handler(event)
        except Exception:
            log.exception("consumer %s: handler failed for %s; will retry", self._durable, event.id)
            await message.nak(delay=self._retry_delay_s)
            return
        await message.ack()
