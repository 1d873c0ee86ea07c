"""Claiming deliveries against a real database: order per URL and key, runs, and retries. Limits,
turns, leases and concurrent claimers are in `test_storage_claim_limits`."""

from __future__ import annotations

import datetime as dt

from redline.notify.deliveries import storage
from redline.pg import Pool, holding
from services.notify.tests.delivery_rows import (
    LEASE_S,
    OTHER_URL,
    claim,
    enqueue,
    ids,
    new,
    record,
    result,
    row,
)

# A number no live session holds: a worker process that died.
DEAD_HOLDER = 2**40


async def test_claim_takes_only_the_head_of_each_url_and_key(pool: Pool) -> None:
    await enqueue(
        pool,
        [
            new("a1", key="k1"),
            new("b1", key="k2"),
            new("a2", key="k1"),
            new("c1", key="k1", url=OTHER_URL),
            new("b2", key="k2"),
            new("a3", key="k1"),
        ],
    )

    first = await claim(pool)
    assert ids(first) == ["a1", "b1", "c1"]
    assert all(d.claim_token and d.attempts == 0 for d in first)
    # Nothing else while the heads are in flight.
    assert await claim(pool) == []

    by_id = {d.webhook_id: d for d in first}
    await record(pool, result(by_id["a1"], "succeeded"))
    assert ids(await claim(pool)) == ["a2"]
    await record(pool, result(by_id["b1"], "succeeded"), result(by_id["c1"], "succeeded"))
    assert ids(await claim(pool)) == ["b2"]
    assert await claim(pool) == []


async def test_a_claim_takes_a_run_from_each_line_in_order(pool: Pool) -> None:
    await enqueue(pool, [new(f"a{i}", key="k1") for i in range(1, 6)] + [new("b1", key="k2")])

    first = await claim(pool, run_limit=3)

    assert ids(first) == ["a1", "a2", "a3", "b1"]
    assert [d.ordering_key for d in first] == ["k1", "k1", "k1", "k2"]
    # Nothing more of a line while part of it is in flight.
    assert await claim(pool, run_limit=3) == []
    by_id = {d.webhook_id: d for d in first}
    await record(pool, result(by_id["a1"], "succeeded"), result(by_id["a2"], "succeeded"))
    assert await claim(pool, run_limit=3) == []
    await record(pool, result(by_id["a3"], "succeeded"))
    assert ids(await claim(pool, run_limit=3)) == ["a4", "a5"]


async def test_nothing_overtakes_deliveries_given_back_for_later(pool: Pool) -> None:
    await enqueue(pool, [new(f"a{i}") for i in range(1, 6)])
    a1, a2, a3 = await claim(pool, run_limit=3)
    # a2 could not be sent yet: the worker gives it back with the rest of its run.
    async with pool.acquire() as conn:
        await storage.release(conn, [(a2.id, a2.claim_token), (a3.id, a3.claim_token)], 3600)
    await record(pool, result(a1, "succeeded"))

    assert await claim(pool, run_limit=3) == []


async def test_a_run_ends_before_a_delivery_not_yet_due(pool: Pool) -> None:
    await enqueue(pool, [new(f"a{i}") for i in range(1, 5)])
    await pool.execute(
        "UPDATE notify.delivery SET next_attempt_at = now() + interval '1 hour'"
        " WHERE webhook_id = 'a3'"
    )

    assert ids(await claim(pool, run_limit=4)) == ["a1", "a2"]


async def test_limits_cut_a_run_short_and_keep_its_start(pool: Pool) -> None:
    await enqueue(pool, [new(f"a{i}", key="k1") for i in range(1, 6)])
    await enqueue(pool, [new(f"b{i}", key="k2") for i in range(1, 6)])

    # The claim's limit: the older run first, from its start.
    first = await claim(pool, limit=2, run_limit=4)
    assert ids(first) == ["a1", "a2"]
    await record(pool, *(result(d, "succeeded") for d in first))
    # The URL's limit, on the next line's turn.
    second = await claim(pool, per_url_limit=3, run_limit=4)
    assert ids(second) == ["b1", "b2", "b3"]
    await record(pool, *(result(d, "succeeded") for d in second))
    third = await claim(pool, per_url_limit=3, run_limit=4)
    assert ids(third) == ["a3", "a4", "a5"]
    await record(pool, *(result(d, "succeeded") for d in third))
    assert ids(await claim(pool, per_url_limit=3, run_limit=4)) == ["b4", "b5"]


async def test_a_delivery_never_tried_holds_back_its_key(pool: Pool) -> None:
    await enqueue(pool, [new("a1", key="k1"), new("a2", key="k1"), new("b1", key="k2")])
    [a1, b1] = sorted(await claim(pool), key=lambda d: d.webhook_id)
    async with pool.acquire() as conn:
        # Given back unsent, due later: still first of its key.
        await storage.release(conn, [(a1.id, a1.claim_token)], 60.0)
    await record(pool, result(b1, "succeeded"))

    assert await claim(pool) == []
    released = await row(pool, "a1")
    assert (released["state"], released["claim_token"], released["attempts"]) == (
        "pending",
        None,
        0,
    )


async def test_a_delivery_waiting_for_its_retry_does_not_hold_back_its_key(pool: Pool) -> None:
    await enqueue(pool, [new("a1"), new("a2"), new("a3")])
    [a1] = await claim(pool)

    await record(pool, result(a1, "pending", status=503, error="HTTP 503", retry_in_s=3600))

    [a2] = await claim(pool)
    assert a2.webhook_id == "a2"
    waiting = await row(pool, "a1")
    assert waiting["state"] == "pending"
    assert waiting["attempts"] == 1
    assert waiting["round_failures"] == 1
    assert waiting["last_status"] == 503
    assert waiting["last_error"] == "HTTP 503"
    assert waiting["claim_token"] is None
    assert waiting["finished_at"] is None


async def test_a_delivery_that_failed_for_good_does_not_hold_back_its_key(pool: Pool) -> None:
    await enqueue(pool, [new("a1"), new("a2")])
    [a1] = await claim(pool)

    await record(pool, result(a1, "failed", status=None, error="blocked: nope"))

    assert ids(await claim(pool)) == ["a2"]
    failed = await row(pool, "a1")
    assert failed["state"] == "failed"
    assert failed["finished_at"] is not None


async def test_a_due_retry_is_claimed_beside_the_next_of_its_key(pool: Pool) -> None:
    await enqueue(pool, [new("a1"), new("a2")])
    [a1] = await claim(pool)
    await record(pool, result(a1, "pending", status=500, error="HTTP 500", retry_in_s=0))

    claimed = await claim(pool)

    assert ids(claimed) == ["a1", "a2"]
    retry = next(d for d in claimed if d.webhook_id == "a1")
    assert (retry.attempts, retry.round_failures) == (1, 1)


async def test_a_retry_is_not_claimed_before_it_is_due(pool: Pool) -> None:
    await enqueue(pool, [new("a1")])
    [a1] = await claim(pool)
    await record(pool, result(a1, "pending", status=500, retry_in_s=3600))

    assert await claim(pool) == []
    async with pool.acquire() as conn:
        due = await storage.next_due(conn)
    assert due is not None
    assert due > dt.datetime.now(dt.UTC) + dt.timedelta(seconds=3000)


async def test_next_due_looks_at_retries_only(pool: Pool) -> None:
    await enqueue(pool, [new("a1", key="k1"), new("b1", key="k2")])
    async with pool.acquire() as conn:
        # New deliveries announce themselves; a due one that is not claimable (it waits for its
        # turn) must not make an idle worker look again at once.
        assert await storage.next_due(conn) is None
        claimed = await storage.claim(conn, 10, 10, LEASE_S, 1)
        soon, later = dt.timedelta(seconds=60), dt.timedelta(seconds=600)
        await storage.record(
            conn,
            [
                result(claimed[0], "pending", status=500, retry_in_s=later.total_seconds()),
                result(claimed[1], "pending", status=500, retry_in_s=soon.total_seconds()),
            ],
        )
        due = await storage.next_due(conn)
    assert due is not None
    now = dt.datetime.now(dt.UTC)
    assert now + soon - dt.timedelta(seconds=5) < due < now + soon


async def test_a_held_retry_holds_back_its_line_and_is_claimed_as_the_head_of_a_run(
    pool: Pool,
) -> None:
    await enqueue(pool, [new(f"w{i}", held=True) for i in range(1, 4)])
    [w1] = await claim(pool, run_limit=1)
    assert w1.retry_holds_line

    await record(pool, result(w1, "pending", status=500, error="HTTP 500", retry_in_s=3600))

    # Waiting for its retry, it keeps its place: nothing of its line overtakes it.
    assert await claim(pool, run_limit=3) == []
    async with pool.acquire() as conn:
        due = await storage.next_due(conn)
    assert due is not None
    assert due > dt.datetime.now(dt.UTC) + dt.timedelta(seconds=3000)

    await pool.execute("UPDATE notify.delivery SET next_attempt_at = now() WHERE id = $1", w1.id)
    run = await claim(pool, run_limit=3)
    assert [d.webhook_id for d in run] == ["w1", "w2", "w3"]
    assert [d.attempts for d in run] == [1, 0, 0]


async def test_a_held_line_goes_on_once_its_retry_failed_for_good(pool: Pool) -> None:
    await enqueue(pool, [new("w1", held=True), new("w2", held=True)])
    [w1] = await claim(pool)
    await record(pool, result(w1, "pending", status=500, retry_in_s=0))
    [w1] = await claim(pool)
    assert w1.attempts == 1

    await record(pool, result(w1, "failed", status=500, error="HTTP 500"))

    assert ids(await claim(pool)) == ["w2"]


async def test_a_held_retry_not_yet_due_takes_a_place_of_its_url(pool: Pool) -> None:
    await enqueue(pool, [new(f"w{k}", key=f"k{k}", held=True) for k in range(1, 5)])
    claimed = {d.webhook_id: d for d in await claim(pool, per_url_limit=2)}
    assert sorted(claimed) == ["w1", "w2"]

    await record(
        pool,
        result(claimed["w1"], "pending", status=500, retry_in_s=3600),
        result(claimed["w2"], "succeeded"),
    )

    # One place left: w1's line waits for its retry as if it were in flight.
    assert ids(await claim(pool, per_url_limit=2)) == ["w3"]


async def test_a_basic_delivery_is_not_held_back_by_a_held_retry_of_another_line(
    pool: Pool,
) -> None:
    await enqueue(pool, [new("w1", key="k1", held=True), new("w2", key="k1", held=True)])
    await enqueue(pool, [new("b1", key="k2"), new("b2", key="k2")])
    claimed = {d.webhook_id: d for d in await claim(pool)}
    await record(
        pool,
        result(claimed["w1"], "pending", status=500, retry_in_s=3600),
        result(claimed["b1"], "pending", status=500, retry_in_s=3600),
    )

    # The basic line goes on without its retry; the held one waits for it.
    assert ids(await claim(pool)) == ["b2"]


async def test_deliveries_a_dead_process_was_sending_are_claimed_again_at_once(
    pool: Pool, database_url: str
) -> None:
    await enqueue(pool, [new("a1", key="k1"), new("b1", key="k2")])
    async with holding(database_url) as alive:
        # Two workers claim with the default lease of minutes; the second's process dies.
        [kept] = await claim(pool, limit=1, lease_s=600, holder=alive.number)
        [lost] = await claim(pool, limit=1, lease_s=600, holder=DEAD_HOLDER)

        async with pool.acquire() as conn:
            assert await storage.release_dead_holders(conn) == 1
        again = await claim(pool, lease_s=600, holder=alive.number)

    assert ids(again) == ids([lost])
    assert kept.webhook_id not in ids(again)
