"""The task queue: claims share it fairly between API keys, hold no key past its places, and
take back what a worker that died held."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from redline.pg import Pool, holding
from redline.workflow.engine import queue

# A number no live session holds: a holder that died.
HOLDER = 2**40


@pytest.fixture
async def live(database_url: str) -> AsyncIterator[int]:
    """The number of a holder that is alive for the test."""
    async with holding(database_url) as holder:
        yield holder.number


async def _add_tasks(pool: Pool, api_key: str, count: int, due_s_ago: float) -> None:
    """`count` run tasks of the key (of executions of their own), due `due_s_ago`."""
    async with pool.acquire() as conn:
        await conn.execute(
            "INSERT INTO workflow.task (execution_id, step_id, kind, due_at, api_key)"
            " SELECT 'exec_' || $1 || '_' || md5(random()::text), 'step', 'run',"
            " now() - make_interval(secs => $3::float8), $1 FROM generate_series(1, $2) n",
            api_key,
            count,
            float(due_s_ago),
        )


async def _keys_of(pool: Pool, tasks: list[queue.ClaimedTask]) -> list[str]:
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT api_key FROM workflow.task WHERE execution_id = ANY($1::text[])"
            " ORDER BY api_key",
            [task.execution_id for task in tasks],
        )
    return [row["api_key"] for row in rows]


async def test_a_key_with_one_due_task_is_served_before_another_keys_backlog(
    pool: Pool, live: int
) -> None:
    await _add_tasks(pool, "key-a", 500, due_s_ago=60)
    await _add_tasks(pool, "key-b", 1, due_s_ago=0)
    async with pool.acquire() as conn:
        claimed = await queue.claim_tasks(conn, 4, per_key_limit=100, lease_s=60, holder=live)
    assert await _keys_of(pool, claimed) == ["key-a", "key-a", "key-a", "key-b"]


async def test_no_key_has_more_than_its_places_in_flight(pool: Pool, live: int) -> None:
    await _add_tasks(pool, "key-a", 50, due_s_ago=60)
    async with pool.acquire() as conn:
        first = await queue.claim_tasks(conn, 10, per_key_limit=3, lease_s=60, holder=live)
        second = await queue.claim_tasks(conn, 10, per_key_limit=3, lease_s=60, holder=live)
        await _add_tasks(pool, "key-b", 5, due_s_ago=0)
        third = await queue.claim_tasks(conn, 10, per_key_limit=3, lease_s=60, holder=live)
        # A finished task gives its place back.
        await queue.delete_task(conn, first[0])
        fourth = await queue.claim_tasks(conn, 10, per_key_limit=3, lease_s=60, holder=live)
    assert len(first) == 3
    assert second == []
    assert await _keys_of(pool, third) == ["key-b"] * 3
    assert await _keys_of(pool, fourth) == ["key-a"]


async def test_claims_visit_the_keys_in_turn(pool: Pool, live: int) -> None:
    for key in ("key-a", "key-b", "key-c"):
        await _add_tasks(pool, key, 10, due_s_ago=60)
    served: list[str] = []
    async with pool.acquire() as conn:
        for _ in range(6):
            claimed = await queue.claim_tasks(conn, 1, per_key_limit=100, lease_s=60, holder=live)
            served += await _keys_of(pool, claimed)
    assert served == ["key-a", "key-b", "key-c", "key-a", "key-b", "key-c"]


async def test_a_claim_whose_lease_ran_out_is_taken_again_and_no_longer_counts(
    pool: Pool, live: int
) -> None:
    await _add_tasks(pool, "key-a", 3, due_s_ago=60)
    async with pool.acquire() as conn:
        died = await queue.claim_tasks(conn, 10, per_key_limit=2, lease_s=60, holder=live)
        # The worker that claimed them died: their leases run out.
        await conn.execute("UPDATE workflow.task SET due_at = now() - interval '1 second'")
        again = await queue.claim_tasks(conn, 10, per_key_limit=2, lease_s=60, holder=live)
        taken_back = [task for task in died if task.execution_id in {t.execution_id for t in again}]
        # The dead worker's claim on what was taken again is no longer its.
        held = [await queue.hold_claim(conn, task) for task in taken_back]
    assert len(died) == 2
    assert len(again) == 2
    assert taken_back
    assert held == [False] * len(taken_back)


async def test_the_next_due_time_leaves_out_tasks_due_already(pool: Pool) -> None:
    await _add_tasks(pool, "key-a", 2, due_s_ago=60)
    async with pool.acquire() as conn:
        assert await queue.next_task_due(conn) is None
        await _add_tasks(pool, "key-a", 1, due_s_ago=-30)
        due = await queue.next_task_due(conn)
    assert due is not None
    assert 0 < due <= 30


async def test_the_claims_of_a_holder_whose_session_ended_are_taken_again_at_once(
    pool: Pool, live: int
) -> None:
    await _add_tasks(pool, "key-a", 3, due_s_ago=60)
    async with pool.acquire() as conn:
        held = await queue.claim_tasks(conn, 1, per_key_limit=10, lease_s=600, holder=live)
        died = await queue.claim_tasks(conn, 1, per_key_limit=10, lease_s=600, holder=HOLDER)
        # The lease has ten minutes to go, but the second claim's holder is gone.
        await queue.free_dead_holders(conn)
        again = await queue.claim_tasks(conn, 10, per_key_limit=10, lease_s=600, holder=live)
        still_held = await queue.hold_claim(conn, held[0])
    assert held[0].execution_id not in {t.execution_id for t in again}
    assert died[0].execution_id in {t.execution_id for t in again}
    assert still_held is True
