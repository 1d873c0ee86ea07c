"""The delivery worker against a real database and real receivers on this machine: a slow
receiver does not hold up the others, replicas share the work without sending anything twice,
a key's deliveries arrive in order, failures are retried or not, and a stopped worker gives its
claims back."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable

import pytest

from redline.notify.deliveries import storage
from redline.pg import Pool, create_pool
from services.notify.tests.delivery_rows import row
from services.notify.tests.worker_support import (
    SCHEDULE,
    FailsOnce,
    KeyGone,
    Receiver,
    all_in,
    enqueue,
    eventually,
    new,
    states,
    warm_up,
    worker,
)


async def test_a_slow_receiver_does_not_hold_up_a_fast_one(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    slow = await receivers(delay_s=1.0)
    fast = await receivers()
    # The slow receiver's deliveries come first.
    await enqueue(pool, [new(f"slow{i:02d}", slow.url, key=f"k{i}") for i in range(30)])
    await enqueue(pool, [new(f"fast{i:02d}", fast.url, key=f"k{i}") for i in range(30)])

    async with worker(pool, per_url_limit=4):
        await eventually(lambda: fast.answered == 30, what="the fast receiver's 30")
        slow_arrived, slow_answered = len(slow.arrived), slow.answered
        await eventually(lambda: all_in(pool, "succeeded", 60), timeout_s=20, what="every delivery")

    # When the fast receiver had everything, the slow one had seen at most its first two rounds.
    assert slow_arrived <= 8
    assert slow_answered <= 4
    assert sorted(fast.counts().values()) == [1] * 30
    assert sorted(slow.counts().values()) == [1] * 30
    # It was kept busy, and never had more than its limit at once.
    assert slow.max_in_flight == 4
    assert fast.max_in_flight <= 4


async def test_slow_receivers_do_not_take_the_places_of_the_others(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    slow = [await receivers(delay_s=1.0) for _ in range(3)]
    fast = await receivers()
    # The slow receivers' deliveries come first, more of them than the worker may hold at once.
    for n, receiver in enumerate(slow):
        await enqueue(pool, [new(f"slow{n}-{i:02d}", receiver.url, key=f"k{i}") for i in range(40)])
    await enqueue(pool, [new(f"fast{i:02d}", fast.url, key=f"k{i}") for i in range(30)])

    async with worker(pool, per_url_limit=4, process_limit=32):
        await eventually(lambda: fast.answered == 30, timeout_s=5, what="the fast receiver's 30")
        slow_answered = sum(receiver.answered for receiver in slow)
        # A slow receiver holds about as many claims as it has requests under way, not a
        # window of them that would keep the fast one's deliveries from being claimed.
        sending = await pool.fetchval(
            "SELECT count(*) FROM notify.delivery WHERE state = 'sending' AND url <> $1", fast.url
        )

    assert slow_answered <= 3 * 4 * 2
    assert sending <= 3 * 4
    assert sorted(fast.counts().values()) == [1] * 30
    assert all(receiver.max_in_flight == 4 for receiver in slow)


async def test_a_slow_receiver_gets_several_documents_at_once(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(delay_s=0.3)
    first = [new(f"first{k}", receiver.url, key=f"first{k}") for k in range(4)]
    # Then a backlog for each of four documents, the first document's queued first.
    deliveries = [new(f"d{k}-{i}", receiver.url, key=f"k{k}") for k in range(4) for i in range(4)]
    await enqueue(pool, first)
    await enqueue(pool, deliveries)

    async with worker(pool, per_url_limit=4):
        await eventually(lambda: all_in(pool, "succeeded", 20), what="twenty deliveries")

    # The first four answer together, freeing all four places at once. They go to four
    # documents, one each, not to a run of the first document that one request would carry.
    assert sorted(receiver.arrived[:4]) == sorted(d.webhook_id for d in first)
    assert sorted(receiver.arrived[4:8]) == [f"d{k}-0" for k in range(4)]
    assert receiver.max_key_in_flight == 1
    for k in range(4):
        mine = [w for w in receiver.arrived if w.startswith(f"d{k}-")]
        assert mine == [f"d{k}-{i}" for i in range(4)]


async def test_a_receiver_turned_slow_gives_back_the_deliveries_waiting_for_it(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    deliveries = [new(f"d{i:02d}", receiver.url, key=f"k{i}") for i in range(40)]

    async with worker(pool, per_url_limit=2, per_url_window=40):
        await warm_up(pool, receiver, 20)
        receiver.delay_s = 1.0
        await enqueue(pool, deliveries)
        # Its answers were fast: the worker claims a line of them ahead of its two requests.
        # How long a line depends on how fast this machine answered (40 at 2.5 ms or less).
        held = await most_held(pool, over_s=0.8)
        assert held > 4, f"{held} claims: no line behind the two requests"

        # Its answers now take a second: the claims waiting for it go back to the queue,
        # unsent and with no attempt counted, until about its two requests remain.
        async def about_its_requests_held() -> bool:
            return (await states(pool))["sending"] <= 3

        await eventually(about_its_requests_held, timeout_s=8, what="the claims given back")
        waiting = await pool.fetch(
            "SELECT attempts, claim_token FROM notify.delivery WHERE state = 'pending'"
        )
        receiver.delay_s = 0.0
        await eventually(lambda: all_in(pool, "succeeded", 60), what="every delivery")

    # Given back or never claimed, no waiting delivery was sent or counted an attempt.
    assert len(waiting) >= 30
    assert {(r["attempts"], r["claim_token"]) for r in waiting} == {(0, None)}
    assert sorted(receiver.counts().values()) == [1] * 60


async def most_held(pool: Pool, *, over_s: float) -> int:
    """The most deliveries claimed at one time, looked at for `over_s`."""
    most = 0
    deadline = time.monotonic() + over_s
    while time.monotonic() < deadline:
        most = max(most, (await states(pool))["sending"])
        await asyncio.sleep(0.02)
    return most


async def test_two_workers_share_the_work_and_send_each_delivery_once(
    database_url: str, pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    keys = [f"org1/doc{k}" for k in range(20)]
    deliveries = [new(f"d{i:03d}", receiver.url, key=keys[i // 10]) for i in range(200)]
    await enqueue(pool, deliveries)
    other_pool = await create_pool(database_url, max_size=6)
    try:
        async with (
            worker(pool, per_url_limit=8, process_limit=16, agent="replica-a"),
            worker(other_pool, per_url_limit=8, process_limit=16, agent="replica-b"),
        ):
            await eventually(
                lambda: all_in(pool, "succeeded", 200), timeout_s=20, what="200 deliveries"
            )
    finally:
        await other_pool.close()

    assert receiver.counts() == Counter({d.webhook_id: 1 for d in deliveries})
    assert set(receiver.agents) == {"replica-a", "replica-b"}
    # Each key's deliveries arrived one at a time and in the order they were enqueued, whoever
    # sent them; different keys went out side by side.
    assert receiver.max_key_in_flight == 1
    assert receiver.max_in_flight > 1
    for key in keys:
        expected = [d.webhook_id for d in deliveries if d.ordering_key == key]
        assert [w for w in receiver.arrived if w in set(expected)] == expected
    attempts = await pool.fetchval("SELECT count(*) FROM notify.delivery_attempt")
    assert attempts == 200


async def test_a_keys_deliveries_arrive_in_order(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(delay_s=0.002)
    deliveries = [new(f"d{i:02d}", receiver.url) for i in range(50)]
    await enqueue(pool, deliveries)

    async with worker(pool, per_url_limit=8):
        await eventually(lambda: all_in(pool, "succeeded", 50), what="50 deliveries")

    assert receiver.arrived == [d.webhook_id for d in deliveries]
    # One at a time: the next goes once the previous one has its answer.
    assert receiver.max_in_flight == 1


async def test_documents_with_long_backlogs_take_turns_with_the_others(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    # Four busy documents of ten deliveries each, queued before one each of four others.
    busy = [
        new(f"busy{d}-{i:02d}", receiver.url, key=f"busy{d}") for d in range(4) for i in range(10)
    ]
    await enqueue(pool, busy)
    await enqueue(pool, [new(f"late{d}", receiver.url, key=f"late{d}") for d in range(4)])

    async with worker(pool, per_url_limit=1):
        await eventually(lambda: all_in(pool, "succeeded", 44), what="44 deliveries")

    # Taken in turn, a run of up to four at a time (the window of one sender), the late
    # documents go out in the first round, not after the forty.
    assert max(receiver.arrived.index(f"late{d}") for d in range(4)) < 4 * 4 + 4
    for d in range(4):
        mine = [w for w in receiver.arrived if w.startswith(f"busy{d}-")]
        assert mine == sorted(mine)


async def test_a_failed_attempt_is_retried_and_every_attempt_recorded(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(statuses=[500])
    await enqueue(pool, [new("d1", receiver.url)])

    async with worker(pool):
        await eventually(lambda: all_in(pool, "succeeded", 1), what="the retry")

    delivery = await row(pool, "d1")
    assert delivery["attempts"] == 2
    assert delivery["last_status"] == 200
    assert delivery["last_error"] is None
    assert delivery["finished_at"] is not None
    async with pool.acquire() as conn:
        first, second = await storage.attempts_of(conn, [delivery["id"]])
    assert (first.attempt, first.status, first.error) == (1, 500, "HTTP 500")
    assert (second.attempt, second.status, second.error) == (2, 200, None)
    # The retry waited for its turn in the schedule.
    assert (second.started_at - first.started_at).total_seconds() >= 0.05
    assert receiver.arrived == ["d1", "d1"]


async def test_a_delivery_fails_for_good_after_the_last_retry(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(statuses=[503] * 10)
    await enqueue(pool, [new("d1", receiver.url)])

    async with worker(pool):
        await eventually(lambda: all_in(pool, "failed", 1), what="the failure")
        delivery = await row(pool, "d1")

    assert delivery["attempts"] == len(SCHEDULE.waits_s) + 1
    assert delivery["last_status"] == 503
    assert delivery["last_error"] == "HTTP 503"
    assert receiver.arrived == ["d1"] * 3


@pytest.mark.parametrize(
    "url",
    ["https://169.254.169.254/latest/meta-data", "https://localhost/hook", "http://example.com/"],
)
async def test_a_blocked_target_fails_at_once(pool: Pool, url: str) -> None:
    await enqueue(pool, [new("d1", url)])

    async with worker(pool):
        await eventually(lambda: all_in(pool, "failed", 1), what="the failure")

    delivery = await row(pool, "d1")
    assert delivery["attempts"] == 1
    assert delivery["last_status"] is None
    assert delivery["last_error"].startswith("blocked: ")
    async with pool.acquire() as conn:
        [attempt] = await storage.attempts_of(conn, [delivery["id"]])
    assert attempt.error == delivery["last_error"]


async def test_an_undeliverable_delivery_fails_without_a_request(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    await enqueue(pool, [new("d1", receiver.url)])

    async with worker(pool, header_source=KeyGone()):
        await eventually(lambda: all_in(pool, "failed", 1), what="the failure")

    delivery = await row(pool, "d1")
    assert (delivery["attempts"], delivery["last_error"]) == (1, "the API key no longer exists")
    assert receiver.arrived == []


async def test_a_delivery_whose_send_breaks_is_given_back_and_the_line_goes_on(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    await enqueue(pool, [new(f"d{i}", receiver.url, key=f"k{i}") for i in range(5)])
    source = FailsOnce("d0")

    async with worker(pool, per_url_limit=1, header_source=source):
        await eventually(
            lambda: sorted(receiver.counts()) == ["d1", "d2", "d3", "d4"], what="the others"
        )
        broken = await row(pool, "d0")

    assert source.failed
    # Given back without an attempt, to be tried again once its deferral is over.
    assert (broken["state"], broken["attempts"], broken["claim_token"]) == ("pending", 0, None)
    assert broken["next_attempt_at"] > broken["created_at"]


async def test_a_delivery_given_back_takes_the_rest_of_its_run_with_it(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    deliveries = [new(f"d{i}", receiver.url) for i in range(6)]
    await enqueue(pool, deliveries)
    source = FailsOnce("d2")

    # One sender, so a window of four: d0 to d3 are claimed as one run.
    async with worker(pool, per_url_limit=1, header_source=source, defer_s=0.2):
        await eventually(lambda: all_in(pool, "succeeded", 6), what="6 deliveries")

    assert source.failed
    # d3 waited for d2's second try instead of going out in its place.
    assert receiver.arrived == [d.webhook_id for d in deliveries]


async def test_a_stopped_worker_gives_its_claims_back(
    database_url: str, pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    deliveries = [new(f"d{i}", receiver.url, key=f"k{i}") for i in range(6)]

    async with worker(pool, per_url_limit=2, lease_s=60):
        await warm_up(pool, receiver, 4)
        receiver.gate.clear()  # requests wait until the gate opens
        await enqueue(pool, deliveries)
        # Two requests under way, four more claimed and waiting for their turn.
        await eventually(lambda: receiver.in_flight == 2, what="two requests in flight")
        await eventually(lambda: all_in(pool, "sending", 6), what="six claims")

    rows = await pool.fetch("SELECT * FROM notify.delivery WHERE webhook_id LIKE 'd%'")
    assert {(r["state"], r["claim_token"], r["attempts"]) for r in rows} == {("pending", None, 0)}
    assert await pool.fetchval("SELECT count(*) FROM notify.delivery_attempt") == 4

    receiver.gate.set()
    first_round = len(receiver.arrived)
    other_pool = await create_pool(database_url, max_size=6)
    try:
        # Another worker sends them long before the lease would have run out.
        async with worker(other_pool, per_url_limit=2, lease_s=60):
            await eventually(
                lambda: all_in(pool, "succeeded", 10), timeout_s=10, what="the other worker"
            )
    finally:
        await other_pool.close()
    assert sorted(receiver.arrived[first_round:]) == sorted(d.webhook_id for d in deliveries)


async def test_a_request_that_outlasts_its_lease_keeps_its_claim(
    database_url: str, pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(delay_s=2.5)
    await enqueue(pool, [new("d0", receiver.url)])
    other_pool = await create_pool(database_url, max_size=6)
    try:
        # The request takes two and a half leases; the idle replica looks for work every
        # second meanwhile, and would take the delivery again if its claim ran out.
        async with (
            worker(pool, per_url_limit=1, lease_s=1.0, agent="replica-a"),
            worker(other_pool, per_url_limit=1, lease_s=1.0, agent="replica-b"),
        ):
            await eventually(lambda: all_in(pool, "succeeded", 1), what="the delivery")
    finally:
        await other_pool.close()

    assert receiver.counts() == Counter({"d0": 1})
