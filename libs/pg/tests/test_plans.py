"""Statements run in `custom_plans` are planned for their parameters every time, where a
prepared statement otherwise settles on a generic plan that outlives the table's size."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from redline.pg.plans import custom_plans

UPDATE = (
    "UPDATE queue q SET done = true FROM unnest($1::bigint[]) AS r(id)"
    " WHERE q.id = r.id AND NOT q.done"
)


@pytest.fixture
async def conn(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(
            "CREATE TABLE queue (id bigint PRIMARY KEY, done boolean NOT NULL DEFAULT false);"
            " INSERT INTO queue (id) SELECT generate_series(1, 20); ANALYZE queue"
        )
        yield conn
    finally:
        await conn.close()


async def plans_of(conn: asyncpg.Connection, statement: str) -> tuple[int, int]:
    row = await conn.fetchrow(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1",
        statement,
    )
    assert row is not None
    return row["generic_plans"], row["custom_plans"]


async def test_a_prepared_statement_settles_on_a_generic_plan(conn: asyncpg.Connection) -> None:
    # What custom_plans guards against: after five runs the server keeps one plan.
    for n in range(1, 11):
        await conn.execute(UPDATE, [n])

    generic, _ = await plans_of(conn, UPDATE)
    assert generic > 0


async def test_in_custom_plans_every_run_is_planned_for_its_parameters(
    conn: asyncpg.Connection,
) -> None:
    for n in range(1, 11):
        async with custom_plans(conn):
            await conn.execute(UPDATE, [n])

    assert await plans_of(conn, UPDATE) == (0, 10)
    assert await conn.fetchval("SELECT count(*) FROM queue WHERE done") == 10


async def test_custom_plans_is_a_transaction(conn: asyncpg.Connection) -> None:
    async def update_then_fail() -> None:
        async with custom_plans(conn):
            await conn.execute(UPDATE, [1, 2, 3])
            raise RuntimeError("after the update")

    with pytest.raises(RuntimeError):
        await update_then_fail()

    assert await conn.fetchval("SELECT count(*) FROM queue WHERE done") == 0
    assert await conn.fetchval("SHOW plan_cache_mode") == "auto"
