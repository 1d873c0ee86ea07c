"""Mail quotas that hold across replicas: takers in several processes counting in one
PostgreSQL table, per workspace, per hour and per day."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator

import pytest

from redline.pg import Pool, create_pool
from redline.runtime.mail_quota import MailQuota, MailQuotaExceeded

SCHEMA = "quota_test"
# As each sending service's migration creates it in its own schema.
TABLE = """
CREATE TABLE quota_test.mail_quota (
    workspace_id text COLLATE "C" NOT NULL,
    hour timestamptz NOT NULL,
    recipients integer NOT NULL CHECK (recipients >= 0),
    PRIMARY KEY (workspace_id, hour)
)
"""


@pytest.fixture
async def pools(database_url: str) -> AsyncIterator[list[Pool]]:
    """A pool per replica, as each process has its own."""
    opened = [await create_pool(database_url, max_size=4) for _ in range(2)]
    await opened[0].execute(f"CREATE SCHEMA {SCHEMA}")
    await opened[0].execute(TABLE)
    try:
        yield opened
    finally:
        for pool in opened:
            await pool.close()


async def granted(quotas: list[MailQuota], workspace_id: str, attempts: int) -> int:
    async def one(quota: MailQuota) -> bool:
        try:
            await quota.take(workspace_id, 1)
        except MailQuotaExceeded:
            return False
        return True

    results = await asyncio.gather(*(one(quotas[i % len(quotas)]) for i in range(attempts)))
    return sum(results)


async def test_replicas_taking_at_once_never_pass_the_hourly_limit(pools: list[Pool]) -> None:
    quotas = [MailQuota(pool, SCHEMA, per_hour=5, per_day=100) for pool in pools]

    assert await granted(quotas, "ws_1", 20) == 5
    assert await granted(quotas, "ws_2", 3) == 3


async def test_the_day_counts_the_last_24_hours_and_older_rows_go(pools: list[Pool]) -> None:
    pool = pools[0]
    now = await pool.fetchval("SELECT date_trunc('hour', now())")
    await pool.executemany(
        f"INSERT INTO {SCHEMA}.mail_quota VALUES ('ws_1', $1, $2)",  # noqa: S608
        [(now - dt.timedelta(hours=23), 6), (now - dt.timedelta(hours=30), 50)],
    )
    quota = MailQuota(pool, SCHEMA, per_hour=100, per_day=10)

    await quota.take("ws_1", 4)
    with pytest.raises(MailQuotaExceeded) as refused:
        await quota.take("ws_1", 1)

    assert "at most 10 recipients a day (10 in the last 24 hours" in refused.value.message
    assert 1 <= refused.value.retry_after_s <= 3600
    hours = await pool.fetchval(
        f"SELECT count(*) FROM {SCHEMA}.mail_quota WHERE workspace_id = 'ws_1'"  # noqa: S608
    )
    assert hours == 2


async def test_a_failed_send_gives_its_recipients_back(pools: list[Pool]) -> None:
    quota = MailQuota(pools[0], SCHEMA, per_hour=2, per_day=100)

    with pytest.raises(OSError, match="relay is down"):
        async with quota.sending("ws_1", 2):
            raise OSError("the relay is down")
    async with quota.sending("ws_1", 2):
        pass

    with pytest.raises(MailQuotaExceeded):
        await quota.take("ws_1", 1)
