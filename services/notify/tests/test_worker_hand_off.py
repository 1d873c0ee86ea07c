"""New deliveries queued through a running worker against a real database and receivers: those
it can send at once go out claimed by the statement that queued them, within the receiver's
window; the rest wait in the queue; a document's deliveries still arrive one at a time, in
order, whichever way each went."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from redline.notify.deliveries.worker import DeliveryWorker
from redline.pg import Pool
from services.notify.tests.delivery_rows import row
from services.notify.tests.worker_support import (
    Receiver,
    all_in,
    eventually,
    new,
    states,
    worker,
)


async def running(delivery_worker: DeliveryWorker) -> None:
    """Wait until the worker has started (it takes nothing before)."""
    await eventually(lambda: delivery_worker.running, what="the worker running")


async def test_a_delivery_to_an_idle_receiver_is_under_way_when_queued(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(delay_s=0.5)

    async with worker(pool) as delivery_worker:
        await running(delivery_worker)
        await delivery_worker.enqueue([new("a", receiver.url)])

        # No claim came between: the row was written claimed, and the request is under way.
        assert (await row(pool, "a"))["state"] == "sending"
        await eventually(lambda: receiver.arrived == ["a"], what="the delivery's arrival")
        await eventually(lambda: all_in(pool, "succeeded", 1), what="its result")

    stored = await row(pool, "a")
    assert (stored["attempts"], stored["claim_token"]) == (1, None)


async def test_a_receiver_never_heard_from_takes_its_requests_in_flight_at_once(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(delay_s=0.3)

    async with worker(pool, per_url_limit=3) as delivery_worker:
        await running(delivery_worker)
        await delivery_worker.enqueue([new(f"d{i}", receiver.url, key=f"k{i}") for i in range(10)])

        # Its window is its three requests until it has answered; the rest wait in the queue.
        assert (await states(pool))["sending"] == 3
        await eventually(lambda: all_in(pool, "succeeded", 10), what="every delivery")

    assert sorted(receiver.counts().values()) == [1] * 10
    assert receiver.max_in_flight <= 3


async def test_a_documents_deliveries_keep_their_order_across_hand_offs_and_the_queue(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(delay_s=0.01)
    names = [f"d{i:02d}" for i in range(30)]

    async with worker(pool) as delivery_worker:
        await running(delivery_worker)
        for start in range(0, 30, 3):
            batch = [new(name, receiver.url, key="doc") for name in names[start : start + 3]]
            await delivery_worker.enqueue(batch)
            await asyncio.sleep(0.005)
        await eventually(lambda: all_in(pool, "succeeded", 30), what="every delivery")

    assert receiver.arrived == names
    assert receiver.max_key_in_flight == 1


async def test_a_worker_not_running_leaves_new_deliveries_to_the_queue(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()

    async with worker(pool) as delivery_worker:
        await running(delivery_worker)
    # Stopped: it takes nothing, and a running one finds the delivery in the queue.
    await delivery_worker.enqueue([new("a", receiver.url)])
    assert (await row(pool, "a"))["state"] == "pending"

    async with worker(pool):
        await eventually(lambda: receiver.arrived == ["a"], what="the delivery's arrival")
