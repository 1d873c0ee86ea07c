"""Rate limits that hold across replicas: limiters of several processes folding into one
PostgreSQL counter."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from redline.envelope import RateLimiter, Tier
from redline.envelope.errors import ResourceExhausted
from redline.envelope.ratelimit import unsynced_allowance
from redline.pg import Pool, create_pool, migrate
from redline.runtime.rate_counts import MIGRATIONS, SCHEMA, PgRateCounts

LIMIT = 10


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def pools(database_url: str) -> AsyncIterator[list[Pool]]:
    """A pool per replica, as each process has its own."""
    opened = [await create_pool(database_url, max_size=2) for _ in range(2)]
    async with opened[0].acquire() as conn:
        await migrate(conn, SCHEMA, MIGRATIONS)
    try:
        yield opened
    finally:
        for pool in opened:
            await pool.close()


def replica(pool: Pool | None, clock: Clock) -> RateLimiter:
    shared = PgRateCounts(pool) if pool is not None else None
    return RateLimiter({Tier.GENERAL: LIMIT}, clock=clock, shared=shared)


async def admitted(limiters: list[RateLimiter], attempts: int, key: str = "key_1") -> int:
    """Requests of `key` sent to the replicas in turn, as a balancer spreads them."""
    count = 0
    for n in range(attempts):
        try:
            await limiters[n % len(limiters)].hit(Tier.GENERAL, key)
        except ResourceExhausted:
            continue
        count += 1
    return count


async def test_two_replicas_together_admit_the_limit_not_twice_it(pools: list[Pool]) -> None:
    clock = Clock()
    limiters = [replica(pool, clock) for pool in pools]

    together = await admitted(limiters, 3 * LIMIT)

    # Each replica admits at most its unsynced allowance on a view the other has not folded yet.
    assert LIMIT <= together <= LIMIT + len(limiters) * unsynced_allowance(LIMIT)


async def test_a_key_used_up_at_one_replica_is_refused_at_the_other(pools: list[Pool]) -> None:
    clock = Clock()
    first, second = (replica(pool, clock) for pool in pools)
    assert await admitted([first], LIMIT) == LIMIT
    assert await first.sync()

    # The second has not heard of the key: it admits its allowance, then folds and knows.
    assert await admitted([second], LIMIT) == unsynced_allowance(LIMIT)
    with pytest.raises(ResourceExhausted) as refused:
        await second.hit(Tier.GENERAL, "key_1")

    assert refused.value.retry_after_s >= 50
    assert await admitted([second], 1, key="key_2") == 1  # other keys are untouched


async def test_the_shared_window_slides_as_each_replica_s_does(pools: list[Pool]) -> None:
    clock = Clock()
    first, second = (replica(pool, clock) for pool in pools)
    assert await admitted([first], LIMIT) == LIMIT
    assert await first.sync()
    clock.now += 90  # half of that window has slid out: 5 of its 10 still count

    assert await admitted([second], LIMIT) == LIMIT // 2


async def test_without_the_shared_counter_each_replica_limits_on_its_own(
    pools: list[Pool],
) -> None:
    clock = Clock()
    await pools[0].close()  # the database is gone for this replica
    alone = replica(pools[0], clock)

    assert await admitted([alone], 3 * LIMIT) == LIMIT
    assert not await alone.sync()


async def test_counts_kept_while_the_counter_was_away_are_handed_over(pools: list[Pool]) -> None:
    clock = Clock()
    first, second = (replica(pool, clock) for pool in pools)
    async with pools[1].acquire() as conn:
        await conn.execute("ALTER TABLE ratelimit.windows RENAME TO away")
        assert await admitted([first], LIMIT) == LIMIT
        assert not await first.sync()
        await conn.execute("ALTER TABLE ratelimit.away RENAME TO windows")

    assert await first.sync()

    assert await admitted([second], LIMIT) == unsynced_allowance(LIMIT)


async def test_rows_of_keys_idle_for_two_windows_are_deleted(pools: list[Pool]) -> None:
    clock = Clock()
    limiter = replica(pools[0], clock)
    await admitted([limiter], 1, key="idle")
    assert await limiter.sync()
    clock.now += 121

    await admitted([limiter], 1, key="busy")
    assert await limiter.sync()

    async with pools[1].acquire() as conn:
        assert await conn.fetchval("SELECT count(*) FROM ratelimit.windows") == 1
