"""Claiming deliveries against a real database: how much a claim takes (its limit, the URL's limit
across replicas, what the worker wants), the turns a URL's lines take, leases, and concurrent
claimers."""

from __future__ import annotations

import asyncio
import datetime as dt

from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import Wanted
from redline.pg import Pool, create_pool
from services.notify.tests.delivery_rows import (
    LEASE_S,
    OTHER_URL,
    URL,
    claim,
    enqueue,
    ids,
    new,
    record,
    result,
    row,
)


async def test_a_claim_takes_no_more_of_a_url_than_the_worker_wants(pool: Pool) -> None:
    third_url = "https://third.example.com/hook"
    await enqueue(
        pool,
        [new(f"a{i}", key=f"k{i % 2}") for i in range(8)]
        + [new(f"b{i}", key=f"k{i}", url=OTHER_URL) for i in range(6)]
        + [new(f"c{i}", key=f"k{i}", url=third_url) for i in range(6)],
    )

    # Four of the first URL in runs of up to three; none of the second; two of the third in
    # runs of one (the claim's own run limit, for URLs not named).
    first = await claim(
        pool, wanted={URL: Wanted(4, 3), OTHER_URL: Wanted(0, 3)}, wanted_otherwise=2
    )
    assert ids(first) == ["a0", "a1", "a2", "a4", "c0", "c1"]
    # The URL's limit across replicas still holds, whatever a worker wants.
    second = await claim(
        pool, per_url_limit=5, wanted={URL: Wanted(4, 3)}, wanted_otherwise=1, run_limit=2
    )
    assert ids(second) == ["b0", "c2"]


async def test_the_per_url_limit_holds_across_claims(pool: Pool) -> None:
    await enqueue(pool, [new(f"u{i}", key=f"k{i}") for i in range(10)])
    await enqueue(pool, [new(f"o{i}", key=f"k{i}", url=OTHER_URL) for i in range(3)])

    first = await claim(pool, limit=3, per_url_limit=5)
    assert ids(first) == ["u0", "u1", "u2"]
    second = await claim(pool, limit=10, per_url_limit=5)
    # Two more for the busy URL; the other URL has its own limit.
    assert ids(second) == ["o0", "o1", "o2", "u3", "u4"]
    assert await claim(pool, limit=10, per_url_limit=5) == []
    in_flight = await pool.fetchval(
        "SELECT count(*) FROM notify.delivery WHERE state = 'sending' AND url = $1", URL
    )
    assert in_flight == 5

    await record(pool, result(first[0], "succeeded"), result(first[1], "succeeded"))
    assert ids(await claim(pool, limit=10, per_url_limit=5)) == ["u5", "u6"]


async def test_a_claim_visits_a_urls_lines_from_after_the_last_taken_and_round_again(
    pool: Pool,
) -> None:
    # Two deliveries in each of three lines (documents), queued line after line.
    await enqueue(pool, [new(f"{n}{k}", key=f"k{k}") for k in (1, 2, 3) for n in "xy"])

    async def claim_and_deliver(places: int) -> list[str]:
        claimed = await claim(pool, per_url_limit=places)
        await record(pool, *(result(d, "succeeded") for d in claimed))
        return ids(claimed)

    assert await claim_and_deliver(2) == ["x1", "x2"]
    # Line k3 has its turn before k1 goes again, though y1 is older than x3.
    assert await claim_and_deliver(2) == ["x3", "y1"]
    assert await claim_and_deliver(2) == ["y2", "y3"]
    assert await claim(pool) == []


async def test_a_round_takes_each_line_once_and_turns_are_kept_per_url(pool: Pool) -> None:
    await enqueue(pool, [new(f"d{k}", key=f"k{k}") for k in range(1, 6)])
    await enqueue(pool, [new(f"o{k}", key=f"k{k}", url=OTHER_URL) for k in range(1, 4)])
    first = await claim(pool, per_url_limit=2)
    assert ids(first) == ["d1", "d2", "o1", "o2"]
    await record(pool, *(result(d, "succeeded") for d in first))
    # New deliveries in lines already taken from: they wait for the others' turns.
    await enqueue(pool, [new(f"e{k}", key=f"k{k}") for k in range(1, 6)])

    assert ids(await claim(pool, per_url_limit=5)) == ["d3", "d4", "d5", "e1", "e2", "o3"]


async def test_a_document_with_a_long_backlog_does_not_hold_back_the_others(pool: Pool) -> None:
    # Document k0's twenty deliveries were queued before one each of k1 to k4.
    await enqueue(pool, [new(f"a{i:02d}", key="k0") for i in range(20)])
    await enqueue(pool, [new(f"b{i}", key=f"k{i}") for i in range(1, 5)])

    order = []
    for _ in range(6):
        [taken] = await claim(pool, per_url_limit=1)
        order.append(taken.webhook_id)
        await record(pool, result(taken, "succeeded"))

    assert order == ["a00", "b1", "b2", "b3", "b4", "a01"]


async def test_the_turns_of_urls_with_nothing_waiting_are_forgotten(pool: Pool) -> None:
    await enqueue(pool, [new("a1", key="k1"), new("o1", key="k1", url=OTHER_URL)])
    await enqueue(pool, [new("o2", key="k2", url=OTHER_URL)])
    claimed = await claim(pool, per_url_limit=1)
    await record(pool, *(result(d, "succeeded") for d in claimed))
    turns = "SELECT url, after_key FROM notify.delivery_turn"
    assert {tuple(r) for r in await pool.fetch(turns)} == {(URL, "k1"), (OTHER_URL, "k1")}

    async with pool.acquire() as conn:
        await storage.forget_idle_turns(conn)

    # Only the URL with a delivery still waiting keeps its place.
    assert {tuple(r) for r in await pool.fetch(turns)} == {(OTHER_URL, "k1")}


async def test_claim_takes_no_more_than_its_limit(pool: Pool) -> None:
    await enqueue(pool, [new(f"d{i}", key=f"k{i}") for i in range(10)])

    assert ids(await claim(pool, limit=4)) == ["d0", "d1", "d2", "d3"]
    assert ids(await claim(pool, limit=4)) == ["d4", "d5", "d6", "d7"]
    assert ids(await claim(pool, limit=4)) == ["d8", "d9"]


async def test_extending_a_lease_keeps_the_claim(pool: Pool) -> None:
    await enqueue(pool, [new("a1", key="k1"), new("b1", key="k2")])
    a1, b1 = await claim(pool, lease_s=1)

    async with pool.acquire() as conn:
        await storage.extend_leases(conn, [(a1.id, a1.claim_token), (b1.id, "not-the-token")], 600)

    assert (await row(pool, "a1"))["lease_until"] > dt.datetime.now(dt.UTC) + dt.timedelta(
        seconds=500
    )
    assert (await row(pool, "b1"))["lease_until"] < dt.datetime.now(dt.UTC) + dt.timedelta(
        seconds=2
    )


async def test_an_expired_lease_is_claimed_again(pool: Pool) -> None:
    await enqueue(pool, [new("a1"), new("a2")])
    [first] = await claim(pool)
    # Within its lease, nobody else gets it (nor the next of its key).
    assert await claim(pool) == []

    await pool.execute(
        "UPDATE notify.delivery SET lease_until = now() - interval '1 second'"
        " WHERE webhook_id = 'a1'"
    )
    [again] = await claim(pool)

    assert again.id == first.id
    assert again.claim_token != first.claim_token
    assert again.attempts == 0


async def test_the_lease_is_as_long_as_asked(pool: Pool) -> None:
    await enqueue(pool, [new("a1")])
    before = dt.datetime.now(dt.UTC)

    await claim(pool, lease_s=90)

    lease_until = (await row(pool, "a1"))["lease_until"]
    assert before + dt.timedelta(seconds=85) < lease_until
    assert lease_until < dt.datetime.now(dt.UTC) + dt.timedelta(seconds=95)


async def test_concurrent_claimers_never_share_a_delivery(database_url: str, pool: Pool) -> None:
    await enqueue(pool, [new(f"d{i:03d}", key=f"k{i % 40}") for i in range(400)])
    others = await create_pool(database_url, max_size=2)
    try:
        seen: list[str] = []
        while True:
            batches = await asyncio.gather(
                claim(pool, limit=7, per_url_limit=30), claim(others, limit=7, per_url_limit=30)
            )
            claimed = [d for batch in batches for d in batch]
            if not claimed:
                in_flight = await pool.fetchval(
                    "SELECT count(*) FROM notify.delivery WHERE state = 'sending'"
                )
                if in_flight == 0:
                    break
            seen += [d.webhook_id for d in claimed]
            # Both claimers together stay within the URL's limit.
            assert len(claimed) <= 30
            # Finish what was claimed so that the next of each key becomes claimable.
            await record(pool, *(result(d, "succeeded") for d in claimed))
    finally:
        await others.close()

    assert len(seen) == len(set(seen)) == 400


async def test_concurrent_claimers_keep_the_per_url_limit(database_url: str, pool: Pool) -> None:
    await enqueue(pool, [new(f"d{i:03d}", key=f"k{i}") for i in range(100)])
    others = await create_pool(database_url, max_size=2)
    try:
        batches = await asyncio.gather(
            *(claim(p, limit=10, per_url_limit=12) for p in (pool, others, pool, others))
        )
    finally:
        await others.close()

    claimed = [d.webhook_id for batch in batches for d in batch]
    assert len(claimed) == len(set(claimed)) == 12


async def test_a_claim_reads_no_whole_table_with_many_deliveries_due(pool: Pool) -> None:
    """With thousands queued and hundreds of retries due, a claim still finds what it takes by
    index; a hash of the whole table would cost it milliseconds per thousand rows."""
    await enqueue(pool, [new(f"d{i:04d}", key=f"k{i % 500}") for i in range(3000)])
    await pool.execute(
        "UPDATE notify.delivery SET attempts = 1, next_attempt_at = now() - interval '1 second'"
        " WHERE id % 10 = 0"
    )
    await pool.execute("ANALYZE notify.delivery")

    count = (
        "SELECT seq_scan FROM pg_stat_xact_user_tables"
        " WHERE schemaname = 'notify' AND relname = 'delivery'"
    )
    # Counters this connection has not yet reported: they grow only with its own scans.
    async with pool.acquire() as conn, conn.transaction():
        before = await conn.fetchval(count)
        claimed = await storage.claim(conn, 1024, 128, LEASE_S, 16)
        after = await conn.fetchval(count)

    assert len(claimed) == 128
    assert after == before


async def test_a_url_whose_line_waits_for_a_held_retry_keeps_its_turn(pool: Pool) -> None:
    await enqueue(pool, [new("w1", key="k1", held=True)])
    [w1] = await claim(pool)
    await record(pool, result(w1, "pending", status=500, retry_in_s=3600))

    async with pool.acquire() as conn:
        await storage.forget_idle_turns(conn)

    turns = await pool.fetch("SELECT url, after_key FROM notify.delivery_turn")
    assert {tuple(r) for r in turns} == {(URL, "k1")}


async def test_a_claim_reads_no_whole_table_with_many_lines_held(pool: Pool) -> None:
    """Held retries, due or not, are found by index like the rest of the queue."""
    await enqueue(pool, [new(f"w{i:04d}", key=f"k{i % 500}", held=True) for i in range(3000)])
    await pool.execute(
        "UPDATE notify.delivery SET attempts = 1,"
        " next_attempt_at = now() + CASE WHEN id % 2 = 0 THEN interval '1 hour'"
        " ELSE -interval '1 second' END"
        " WHERE id <= 200"
    )
    await pool.execute("ANALYZE notify.delivery")

    count = (
        "SELECT seq_scan FROM pg_stat_xact_user_tables"
        " WHERE schemaname = 'notify' AND relname = 'delivery'"
    )
    async with pool.acquire() as conn, conn.transaction():
        before = await conn.fetchval(count)
        claimed = await storage.claim(conn, 1024, 400, LEASE_S, 16)
        after = await conn.fetchval(count)

    # The hundred lines whose first waits for its retry an hour yet hold their places; the
    # others give a run each, up to the URL's limit.
    assert len(claimed) == 400 - 100
    assert not {d.webhook_id for d in claimed} & {f"w{i:04d}" for i in range(1, 200, 2)}
    assert after == before
