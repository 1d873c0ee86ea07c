"""The outbox relay: publishes committed outbox rows to JetStream and marks them sent.

Rows are published with `Nats-Msg-Id` = event id, so a batch re-published after a crash between
publish and mark is dropped by the stream's dedupe window. While NATS is unreachable the rows wait
in PostgreSQL and the relay retries with backoff; the API keeps answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

import asyncpg
from nats.js import JetStreamContext

from redline.pg import outbox
from redline.pg.pool import Pool

log = logging.getLogger("redline.bus.relay")


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
        retention_s: int = 24 * 3600,
    ) -> None:
        self._pool = pool
        self._js = js
        self._schemas = list(schemas)
        self._batch_size = batch_size
        self._poll_interval_s = poll_interval_s
        self._publish_timeout_s = publish_timeout_s
        self._retention_s = retention_s
        self._wakeup = asyncio.Event()

    def wake(self) -> None:
        self._wakeup.set()

    async def run(self) -> None:
        """Relay until cancelled. Woken by NOTIFY at commit; polls as a fallback."""
        listener: asyncpg.pool.PoolConnectionProxy[Any] | None = None
        backoff = 0.1
        try:
            while True:
                try:
                    if listener is None:
                        listener = await self._listen()
                    published = await self.relay_pending()
                    backoff = 0.1
                except Exception as exc:
                    log.warning("outbox relay failed (%s); retrying in %.1fs", exc, backoff)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, 5.0)
                    continue
                if published:
                    continue
                self._wakeup.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wakeup.wait(), self._poll_interval_s)
        finally:
            if listener is not None:
                with contextlib.suppress(Exception):
                    await listener.remove_listener(outbox.NOTIFY_CHANNEL, self._notified)
                await self._pool.release(listener)

    def _notified(self, *_: object) -> None:
        self._wakeup.set()

    async def _listen(self) -> asyncpg.pool.PoolConnectionProxy[Any]:
        conn = await self._pool.acquire()
        await conn.add_listener(outbox.NOTIFY_CHANNEL, self._notified)
        return conn

    async def relay_pending(self) -> int:
        """Publish one batch per schema; returns how many events went out."""
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
            await outbox.mark_sent(conn, schema, [row.seq for row in rows])
        return len(rows)

    async def _publish(self, rows: Sequence[outbox.OutboxRow]) -> None:
        # Publish the whole batch before awaiting acks: order on the stream is the send order
        # on this one connection, and throughput is several times that of ack-per-message.
        acks = [
            await self._js.publish_async(row.subject, row.payload, headers={"Nats-Msg-Id": row.id})
            for row in rows
        ]
        await asyncio.wait_for(asyncio.gather(*acks), self._publish_timeout_s)

    async def purge(self) -> int:
        purged = 0
        async with self._pool.acquire() as conn:
            for schema in self._schemas:
                purged += await outbox.purge_sent(conn, schema, self._retention_s)
        return purged
