"""Fixtures of workflow's own tests: a pool on a fresh database with workflow's schema."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from redline.pg import Pool, create_pool, migrate
from redline.workflow.app import MIGRATIONS
from redline.workflow.engine.storage import SCHEMA


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[Pool]:
    pool = await create_pool(database_url, max_size=8)
    async with pool.acquire() as conn:
        await migrate(conn, SCHEMA, MIGRATIONS)
    yield pool
    await pool.close()
