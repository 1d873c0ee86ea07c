"""Claims that die with the process holding them.

Workers share work through claims in PostgreSQL (an ingest, a workflow step, a webhook
delivery), each with a lease that a dead worker's claim runs out of. A lease long enough for slow
work leaves a killed worker's claim waiting minutes. So each process that claims work also holds
one session of its own for as long as it lives (`Holder`), holding a session advisory lock on
its number (the session's backend pid); a claim records that number. PostgreSQL ends a session
when its client's connection closes, and with it the lock: within moments of a process being
killed, its number is no longer held, and its claims are free to take (`LIVE_HOLDERS` says whose
are not; workers ask every few seconds, as reading `pg_locks` briefly holds the lock manager's
partitions that every transaction needs). The lease stays as the last resort, for a holder whose
machine vanished without closing its connection (found by the server's TCP keepalives) and for
claims made before a holder was recorded (NULL: judged by the lease alone).

The holder session needs a real session: through a pooler in transaction mode the lock would not
outlive a statement.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import asyncpg

log = logging.getLogger("redline.pg.holders")

# The first key of every holder lock (the ASCII of "RDLH"); the second is the holder's number.
HOLDER_LOCK_CLASS = 0x52444C48

# The numbers whose holder is alive: their session holds its lock in this database.
LIVE_HOLDERS = (
    "SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted"
    f" AND classid = {HOLDER_LOCK_CLASS}::oid AND objsubid = 2"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)
RECONNECT_S = 1.0
# How often a worker looks for the claims of dead holders: reading `pg_locks` holds the lock
# manager's partitions for a moment, so not with every claim.
SWEEP_S = 5.0


class Holder:
    """This process's mark of life in PostgreSQL. `number` changes when the session is lost and
    made again (a restart of PostgreSQL): claims made under the old number are then free for
    any worker, and this process's own writes to them fail their claim check, as a dead
    worker's would."""

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self._conn: asyncpg.Connection[Any] | None = None
        self._number: int | None = None
        self._watch: asyncio.Task[None] | None = None

    @property
    def number(self) -> int:
        if self._number is None:
            raise RuntimeError("the holder session is not started")
        return self._number

    async def start(self) -> None:
        await self._open()
        self._watch = asyncio.create_task(self._keep(), name="claim-holder")

    async def stop(self) -> None:
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    async def _open(self) -> None:
        conn = await asyncpg.connect(self._dsn)
        number: int = await conn.fetchval("SELECT pg_backend_pid()")
        await conn.execute("SELECT pg_advisory_lock($1, $2)", HOLDER_LOCK_CLASS, number)
        self._conn, self._number = conn, number

    async def _keep(self) -> None:
        """Make the session again when it is lost (until then the old number stands, and its
        claims fail their checks once taken over)."""
        while True:
            await asyncio.sleep(RECONNECT_S)
            if self._conn is not None and not self._conn.is_closed():
                continue
            try:
                await self._open()
                log.warning("claim holder session made again as %s", self._number)
            except (OSError, asyncpg.PostgresError) as exc:
                log.warning("claim holder session cannot be made yet: %s", exc)


@contextlib.asynccontextmanager
async def holding(dsn: str) -> AsyncIterator[Holder]:
    """A started holder for the block."""
    holder = Holder(dsn)
    await holder.start()
    try:
        yield holder
    finally:
        await holder.stop()


class DeadHolderSweeps:
    """When a worker next frees the claims of dead holders: at once, then every `SWEEP_S`."""

    def __init__(self, every_s: float = SWEEP_S) -> None:
        self._every_s = every_s
        self._next = 0.0

    def due(self) -> bool:
        now = time.monotonic()
        if now < self._next:
            return False
        self._next = now + self._every_s
        return True
