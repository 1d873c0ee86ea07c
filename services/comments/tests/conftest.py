"""Fixtures of comments' own tests: a pool on a fresh database with comments' schema."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from redline.comments.app import MIGRATIONS
from redline.comments.shared import storage
from redline.pg import Pool, create_pool, migrate


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[Pool]:
    pool = await create_pool(database_url, max_size=6)
    async with pool.acquire() as conn:
        await migrate(conn, storage.SCHEMA, MIGRATIONS)
    yield pool
    await pool.close()
