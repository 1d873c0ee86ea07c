"""Fixtures of memory's own tests: a pool on a fresh database with memory's schema, and the
claim holder of the test's process."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from redline.memory.app import MIGRATIONS
from redline.memory.knowledge.storage import SCHEMA
from redline.pg import Holder, Pool, create_pool, holding, migrate


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[Pool]:
    pool = await create_pool(database_url, max_size=6)
    async with pool.acquire() as conn:
        await migrate(conn, SCHEMA, MIGRATIONS)
    yield pool
    await pool.close()


@pytest.fixture
async def holder(database_url: str) -> AsyncIterator[Holder]:
    async with holding(database_url) as started:
        yield started
