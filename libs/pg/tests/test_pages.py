"""A page cut at a byte budget in PostgreSQL: rows in order while their bytes stay within it,
always the first, at most the page's size, and whether more rows follow."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from redline.pg.pages import has_more, within_byte_budget

# Rows n = 1..5 whose bodies are n * 100 bytes, read in n's order, one more than `$1` holds.
PAGE = (
    "SELECT n, repeat('x', n * 100) AS body FROM generate_series(1, 5) AS n"
    " WHERE n > $3 ORDER BY n LIMIT $1 + 1"
)
STATEMENT = within_byte_budget(
    PAGE, order="q.n", row_bytes="octet_length(q.body)", page_size="$1", budget="$2"
)


@pytest.fixture
async def conn(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(database_url)
    try:
        yield connection
    finally:
        await connection.close()


async def page(conn: asyncpg.Connection, size: int, budget: int, after: int = 0) -> Any:
    rows = await conn.fetch(STATEMENT, size, budget, after)
    return [row["n"] for row in rows], has_more(rows)


async def test_rows_go_on_while_their_bytes_stay_within_the_budget(
    conn: asyncpg.Connection,
) -> None:
    # 100 + 200 + 300 = 600 fits 650; with 400 more it would not.
    assert await page(conn, 10, 650) == ([1, 2, 3], True)
    assert await page(conn, 10, 650, after=3) == ([4], True)
    assert await page(conn, 10, 650, after=4) == ([5], False)


async def test_the_first_row_goes_on_the_page_however_big(conn: asyncpg.Connection) -> None:
    assert await page(conn, 10, 1, after=2) == ([3], True)


async def test_the_page_size_still_bounds_the_rows(conn: asyncpg.Connection) -> None:
    assert await page(conn, 2, 10_000) == ([1, 2], True)
    assert await page(conn, 5, 10_000) == ([1, 2, 3, 4, 5], False)
    assert await page(conn, 5, 10_000, after=5) == ([], False)
