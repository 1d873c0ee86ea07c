"""Which errors mean "the database cannot be reached right now": those become UNAVAILABLE for
clients, every other error stays a bug to see."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest

from redline.pg import is_unreachable


async def test_a_server_that_is_not_there_is_unreachable(tmp_path: Path) -> None:
    # No socket where the server should listen.
    with pytest.raises(FileNotFoundError) as raised:
        await asyncpg.connect(f"postgresql://postgres@/postgres?host={tmp_path}", timeout=2)
    assert is_unreachable(raised.value)


def test_connection_errors_of_the_server_are_unreachable() -> None:
    assert is_unreachable(asyncpg.ConnectionDoesNotExistError("gone"))
    assert is_unreachable(asyncpg.AdminShutdownError("terminating connection"))
    assert is_unreachable(
        asyncpg.InterfaceError("cannot call Connection.fetch(): connection is closed")
    )


def test_other_errors_are_not() -> None:
    assert not is_unreachable(FileNotFoundError("a blob that is not there"))
    assert not is_unreachable(TimeoutError())
    assert not is_unreachable(asyncpg.UniqueViolationError("duplicate key"))
    assert not is_unreachable(asyncpg.InterfaceError("cannot use Connection.transaction() twice"))
