"""The outbox relay: publishes committed outbox rows to JetStream and deletes them.

Rows are published with `Nats-Msg-Id` = event id, so a batch re-published after a crash between
publish and delete is dropped by the stream's dedupe window, and with `Redline-Request-Id` = the id
of the request that wrote them, when one did. While NATS is unreachable the rows wait in
PostgreSQL and the relay retries with backoff; the API keeps answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import PubAck

from redline.bus.cancellation import raise_if_cancel_was_swallowed
from redline.pg import outbox
from redline.pg.listen import Listener
from redline.pg.pool import Pool
from redline.proto.request_context import REQUEST_ID_HEADER

log = logging.getLogger("redline.bus.relay")

MIN_BACKOFF_S = 0.1
MAX_BACKOFF_S = 2.0


class NatsUnavailable(ConnectionError):
    """NATS is not connected: publishing now would only fill the client's reconnect buffer."""


class OutboxRelay:
    def __init__(
        self,
        pool: Pool,
        js: JetStreamContext,
        schemas: Sequence[str],
        *,
        batch_size: int = 500,
        poll_interval_s: float = 1.0,
        publish_timeout_s: float = 5.0,
    ) -> None:
        self._pool = pool
        self._js = js
        # nats-py keeps the client private on the JetStream context; the relay needs its state.
        self._nc: Client = js._nc
        self._schemas = list(schemas)
        self._batch_size = batch_size
        self._poll_interval_s = poll_interval_s
        self._publish_timeout_s = publish_timeout_s
        self._wakeup = asyncio.Event()

    def wake(self) -> None:
        self._wakeup.set()

    async def run(self) -> None:
        """Relay until cancelled. Woken by NOTIFY at commit; polls as a fallback."""
        listener = Listener(self._pool, outbox.NOTIFY_CHANNEL, self.wake)
        backoff = MIN_BACKOFF_S
        try:
            while True:
                # Cleared before looking, so a NOTIFY that lands during the pass is not lost.
                self._wakeup.clear()
                try:
                    # After a PostgreSQL restart this listens on a new connection; otherwise
                    # commits would only be noticed by polling from then on.
                    await listener.renew()
                    published = await self.relay_pending()
                    raise_if_cancel_was_swallowed()
                except Exception as exc:
                    # The first failure of a run of them is worth a warning; the retries are not.
                    level = logging.WARNING if backoff == MIN_BACKOFF_S else logging.DEBUG
                    log.log(level, "outbox relay failed (%s); retrying in %.1fs", exc, backoff)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, MAX_BACKOFF_S)
                    continue
                if backoff != MIN_BACKOFF_S:
                    log.info("outbox relay resumed")
                    backoff = MIN_BACKOFF_S
                if published:
                    continue
                # Not asyncio.wait_for: on Python 3.11 it can swallow a cancellation that
                # arrives just as the event is set, and the relay would outlive its app.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._poll_interval_s):
                        await self._wakeup.wait()
        finally:
            await listener.close()

    async def relay_pending(self) -> int:
        """Publish one batch per schema; returns how many events went out."""
        self._require_connection()
        total = 0
        for schema in self._schemas:
            total += await self._relay_schema(schema)
        return total

    async def _relay_schema(self, schema: str) -> int:
        async with self._pool.acquire() as conn, conn.transaction():
            rows = await outbox.claim_unsent(conn, schema, self._batch_size)
            if not rows:
                return 0
            await self._publish(rows)
            await outbox.delete_published(conn, schema, [row.seq for row in rows])
        return len(rows)

    def _require_connection(self) -> None:
        # While disconnected nats-py buffers publishes and, once its buffer is full, raises from
        # inside publish_async after registering the ack future: that future is never resolved
        # and holds one of the context's publish-async slots for good. Do not publish then.
        if not self._nc.is_connected:
            raise NatsUnavailable("NATS is not connected")

    async def _publish(self, rows: Sequence[outbox.OutboxRow]) -> None:
        """Publish the batch and wait for every ack; raises if any was not stored.

        The whole batch goes out before the acks are awaited: order on the stream is the send
        order on this one connection, and throughput is several times that of ack-per-message.
        """
        max_payload = self._nc.max_payload
        for row in rows:
            if len(row.payload) > max_payload:
                raise ValueError(
                    f"outbox event {row.id} is {len(row.payload)} bytes; NATS takes {max_payload}"
                )
        acks: list[asyncio.Future[PubAck]] = []
        try:
            # One deadline for the whole batch, also covering a wait for a free publish-async
            # slot (publish_async's own wait_stall costs a task per message: a third of the
            # throughput).
            async with asyncio.timeout(self._publish_timeout_s):
                for row in rows:
                    self._require_connection()
                    acks.append(
                        await self._js.publish_async(
                            row.subject, row.payload, headers=_headers(row)
                        )
                    )
                results = await asyncio.gather(*acks, return_exceptions=True)
        finally:
            # Acks still pending (a timeout, a failure part-way) are cancelled, which frees their
            # publish-async slots; a late ack for them is ignored by nats-py.
            for ack in acks:
                ack.cancel()
        for result in results:
            if isinstance(result, BaseException):
                raise result


def _headers(row: outbox.OutboxRow) -> dict[str, str]:
    headers = {"Nats-Msg-Id": row.id}
    if row.request_id is not None:
        headers[REQUEST_ID_HEADER] = row.request_id
    return headers
