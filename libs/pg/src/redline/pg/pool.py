"""The asyncpg pool every service uses, with JSON and JSONB decoded and encoded by msgspec."""

from __future__ import annotations

import os
import traceback
from typing import Any, TypeAlias

import asyncpg
import msgspec

# What a function that runs SQL accepts: a connection, or one borrowed from the pool.
# (Strings: asyncpg's classes are generic only in its type stubs.)
Connection: TypeAlias = "asyncpg.Connection[Any] | asyncpg.pool.PoolConnectionProxy[Any]"
Pool: TypeAlias = "asyncpg.Pool[Any]"

_encoder = msgspec.json.Encoder()


def _encode_json(value: Any) -> str:
    return _encoder.encode(value).decode()


async def init_connection(conn: asyncpg.Connection[Any]) -> None:
    for type_name in ("json", "jsonb"):
        await conn.set_type_codec(
            type_name,
            schema="pg_catalog",
            encoder=_encode_json,
            decoder=msgspec.json.decode,
            format="text",
        )


async def _keep_session(conn: asyncpg.Connection[Any]) -> None:
    """Release without asyncpg's default reset query (RESET ALL, UNLISTEN *, …).

    That query costs a round trip on every release. Our code leaves no session state behind:
    settings are `SET LOCAL`, advisory locks are transaction-scoped or released in `finally`, and
    LISTEN is only used on a connection held for its whole life. asyncpg still rolls back an open
    transaction and drops listener callbacks before calling this.
    """


async def create_pool(dsn: str, *, min_size: int = 1, max_size: int = 10) -> Pool:
    pool = await asyncpg.create_pool(
        dsn, min_size=min_size, max_size=max_size, init=init_connection, reset=_keep_session
    )
    assert pool is not None
    return pool


# What PostgreSQL being down, restarting or out of connections looks like to a caller: nothing
# the request did wrong, and gone once the server is back.
_UNREACHABLE = (
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.TooManyConnectionsError,
)


# What a client is told, as UNAVAILABLE, when a request met the database unreachable.
UNREACHABLE_MESSAGE = "The database is not reachable; try again shortly."


def is_unreachable(error: BaseException) -> bool:
    """Whether `error` says the database cannot be reached right now (a retry later may work)."""
    if isinstance(error, _UNREACHABLE):
        return True
    # asyncpg reports a connection the server closed under it as an InterfaceError, and a
    # server it cannot connect to (a missing socket, a refused or timed-out connection) with
    # the OS's own error, which only where it was raised tells from any other.
    if isinstance(error, asyncpg.InterfaceError):
        return "connection is closed" in str(error)
    return isinstance(error, OSError | TimeoutError) and _raised_in_asyncpg(error)


def _raised_in_asyncpg(error: BaseException) -> bool:
    frames = traceback.extract_tb(error.__traceback__)
    return any(f"{os.sep}asyncpg{os.sep}" in frame.filename for frame in frames)
