from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from redline.pg import Pool, create_pool


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[Pool]:
    pool = await create_pool(database_url, min_size=1, max_size=2)
    try:
        yield pool
    finally:
        await pool.close()


VALUES: list[Any] = [
    {"name": "Ada", "tags": ["a", "b"], "nested": {"n": 1, "ok": True, "none": None}},
    [1, 2.5, "three", None, {"four": [4]}],
    {"unicode": "café ✓ 日本", "quote": 'he said "hi"\n'},
    {},
    [],
    "just text",
    42,
]


@pytest.mark.parametrize("column_type", ["json", "jsonb"])
async def test_json_columns_round_trip_python_values(pool: Pool, column_type: str) -> None:
    async with pool.acquire() as conn:
        await conn.execute(f"CREATE TABLE doc (n int PRIMARY KEY, body {column_type} NOT NULL)")
        await conn.executemany("INSERT INTO doc (n, body) VALUES ($1, $2)", list(enumerate(VALUES)))

        stored = [row["body"] for row in await conn.fetch("SELECT body FROM doc ORDER BY n")]

    assert stored == VALUES


async def test_values_are_stored_as_json_not_as_json_strings(pool: Pool) -> None:
    async with pool.acquire() as conn:
        await conn.execute("CREATE TABLE doc (body jsonb NOT NULL)")
        await conn.execute("INSERT INTO doc (body) VALUES ($1)", {"n": 1, "list": [1, 2]})

        row = await conn.fetchrow(
            "SELECT jsonb_typeof(body) AS kind, body->>'n' AS n,"
            " jsonb_array_length(body->'list') AS length FROM doc"
        )

    assert row is not None
    assert (row["kind"], row["n"], row["length"]) == ("object", "1", 2)


async def test_json_built_in_sql_decodes_to_python_on_every_connection(pool: Pool) -> None:
    async with pool.acquire() as first, pool.acquire() as second:
        assert await first.fetchval("""SELECT '{"a": [1, {"b": null}]}'::jsonb""") == {
            "a": [1, {"b": None}]
        }
        assert await second.fetchval("SELECT json_build_object('x', 1.5, 'y', 'z')") == {
            "x": 1.5,
            "y": "z",
        }
