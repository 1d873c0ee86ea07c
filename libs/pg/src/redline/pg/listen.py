"""A LISTEN kept on one pool connection, renewed when that connection dies.

Workers that wake on NOTIFY (the outbox relay, webhook delivery) hold one: a commit elsewhere
calls `on_notify` at once; a dead connection (a PostgreSQL restart) also calls it, so that the
worker looks again and `renew()` listens on a new connection.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import asyncpg

from redline.pg.pool import Pool


class Listener:
    def __init__(self, pool: Pool, channel: str, on_notify: Callable[[], None]) -> None:
        self._pool = pool
        self._channel = channel
        self._on_notify = on_notify
        self._conn: asyncpg.pool.PoolConnectionProxy[Any] | None = None

    async def renew(self) -> None:
        """Listen, on a new connection if the current one is gone; raises if PostgreSQL is down."""
        if self._conn is not None and not _alive(self._conn):
            await self.close()
        if self._conn is None:
            self._conn = await self._listen()

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        with contextlib.suppress(Exception):
            conn.remove_termination_listener(self._notified)
            await conn.remove_listener(self._channel, self._notified)
        with contextlib.suppress(Exception):
            await self._pool.release(conn)

    def _notified(self, *_: object) -> None:
        self._on_notify()

    async def _listen(self) -> asyncpg.pool.PoolConnectionProxy[Any]:
        conn = await self._pool.acquire()
        try:
            await conn.add_listener(self._channel, self._notified)
            conn.add_termination_listener(self._notified)
        except BaseException:
            await self._pool.release(conn)
            raise
        return conn


def _alive(conn: asyncpg.pool.PoolConnectionProxy[Any]) -> bool:
    try:
        return not conn.is_closed()
    except asyncpg.InterfaceError:
        # asyncpg detaches a pool connection from its proxy once the server ends it.
        return False
