"""The delivery worker with lines held by their retries (workflow receivers) against a real
database and real receivers on this machine: a failing delivery holds back the next of its line
until it succeeds or fails for good, a run is cut where it failed, basic deliveries still
overtake their retries, and each kind retries on its own schedule."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from redline.notify.deliveries import storage
from redline.notify.deliveries.schedule import RetrySchedule
from redline.pg import Pool
from services.notify.tests.delivery_rows import row
from services.notify.tests.worker_support import (
    SCHEDULE,
    Receiver,
    all_in,
    enqueue,
    eventually,
    new,
    warm_up,
    worker,
)

StartReceiver = Callable[..., Awaitable[Receiver]]


def workflow_retries(*waits_s: float) -> dict[str, RetrySchedule]:
    return {"workflow": RetrySchedule(list(waits_s), jitter=0.0)}


async def attempts(pool: Pool, webhook_id: str) -> list[tuple[int, int | None]]:
    async with pool.acquire() as conn:
        log = await storage.attempts_of(conn, [(await row(pool, webhook_id))["id"]])
    return [(a.attempt, a.status) for a in log]


async def test_a_failing_delivery_holds_back_the_next_until_its_retry_succeeds(
    pool: Pool, receivers: StartReceiver
) -> None:
    receiver = await receivers(statuses=[500])
    await enqueue(pool, [new("w1", receiver.url, held=True), new("w2", receiver.url, held=True)])

    async with worker(pool, kind_schedules=workflow_retries(0.3)):
        await eventually(lambda: all_in(pool, "succeeded", 2), what="both deliveries")

    # Nothing of w2 went out while w1 waited for its retry.
    assert receiver.arrived == ["w1", "w1", "w2"]
    assert await attempts(pool, "w1") == [(1, 500), (2, 200)]
    assert await attempts(pool, "w2") == [(1, 200)]


async def test_a_delivery_that_fails_for_good_releases_its_line(
    pool: Pool, receivers: StartReceiver
) -> None:
    receiver = await receivers(statuses=[500, 503])
    await enqueue(pool, [new("w1", receiver.url, held=True), new("w2", receiver.url, held=True)])

    async with worker(pool, kind_schedules=workflow_retries(0.05)):
        await eventually(lambda: all_in(pool, "succeeded", 1), what="the second delivery")

    assert receiver.arrived == ["w1", "w1", "w2"]
    dead = await row(pool, "w1")
    assert (dead["state"], dead["attempts"], dead["last_error"]) == ("failed", 2, "HTTP 503")


async def test_a_run_is_cut_where_a_delivery_failed_and_goes_on_from_its_retry(
    pool: Pool, receivers: StartReceiver
) -> None:
    # Answers take a moment, so that two requests would overlap if two senders had them.
    receiver = await receivers(delay_s=0.01)
    deliveries = [new(f"w{i}", receiver.url, key="exec1", held=True) for i in range(1, 5)]

    # Two senders, and a window that lets the line go in runs once the receiver answered.
    async with worker(
        pool, per_url_limit=2, per_url_window=8, kind_schedules=workflow_retries(0.2, 0.2)
    ):
        await warm_up(pool, receiver, 2)
        receiver.statuses = [500, 500]
        await enqueue(pool, deliveries)
        await eventually(lambda: all_in(pool, "succeeded", 6), what="six deliveries")

    # The rest of w1's run went back when it failed; its retry came first of the next run, and
    # the next of its line waited for it rather than go out beside it.
    assert receiver.arrived[2:] == ["w1", "w1", "w1", "w2", "w3", "w4"]
    assert receiver.max_key_in_flight == 1
    for name in ("w2", "w3", "w4"):
        assert await attempts(pool, name) == [(1, 200)]


async def test_basic_deliveries_still_overtake_their_retries(
    pool: Pool, receivers: StartReceiver
) -> None:
    basic = await receivers(statuses=[500])
    held = await receivers(statuses=[500])
    await enqueue(pool, [new("b1", basic.url), new("b2", basic.url)])
    await enqueue(pool, [new("w1", held.url, held=True), new("w2", held.url, held=True)])

    # Both kinds retry after half a second, far later than the next claim even on a busy
    # machine: a basic b2 goes out before b1's retry, a held w2 waits for w1's.
    schedules = {**workflow_retries(0.5), "basic": RetrySchedule([0.5], jitter=0.0)}
    async with worker(pool, kind_schedules=schedules):
        await eventually(lambda: all_in(pool, "succeeded", 4), what="four deliveries")

    assert basic.arrived == ["b1", "b2", "b1"]
    assert held.arrived == ["w1", "w1", "w2"]


async def test_each_kind_retries_on_its_own_schedule(pool: Pool, receivers: StartReceiver) -> None:
    receiver = await receivers(statuses=[503] * 20)
    await enqueue(
        pool, [new("basic", receiver.url, key="k1"), new("held", receiver.url, key="k2", held=True)]
    )

    async with worker(pool, kind_schedules=workflow_retries(0.01, 0.01, 0.01, 0.01)):
        await eventually(lambda: all_in(pool, "failed", 2), what="both failures")

    assert (await row(pool, "basic"))["attempts"] == len(SCHEDULE.waits_s) + 1
    assert (await row(pool, "held"))["attempts"] == 4 + 1
