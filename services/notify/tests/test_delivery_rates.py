"""Receivers' own rates: slots a rate apart whoever takes them, a burst delivered whole and no
faster than the rate by two replicas, and receivers without a rate untouched."""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter
from collections.abc import Awaitable, Callable

from redline.notify.deliveries import storage
from redline.notify.deliveries.rates import DeliveryRates
from redline.notify.deliveries.storage import ClaimedDelivery
from redline.pg import Pool, create_pool
from services.notify.tests.worker_support import Receiver, all_in, enqueue, eventually, new, worker

# How much later than its slot a request may reach the receiver on a busy machine.
LATE_S = 0.1


class FixedRate:
    """Every receiver of the kind asked for `rate` deliveries a second (None: no rate)."""

    def __init__(self, rate: int | None) -> None:
        self.rate = rate

    async def rate_of(self, delivery: ClaimedDelivery) -> int | None:
        return self.rate


def claimed(target: str, kind: str = "advanced") -> ClaimedDelivery:
    return ClaimedDelivery(
        id=1,
        webhook_id="msg_1",
        workspace_id="ws1",
        api_key="key1",
        kind=kind,
        url="https://hooks.example.com/",
        ordering_key="org1/doc1",
        body=b"{}",
        attempts=0,
        round_failures=0,
        claim_token="t",
        target=target,
    )


async def test_slots_of_one_receiver_are_a_rate_apart_and_receivers_do_not_share(
    pool: Pool,
) -> None:
    async with pool.acquire() as conn:
        slots = [await storage.take_slot(conn, "advanced:ep_a", 0.25) for _ in range(4)]
        other = await storage.take_slot(conn, "advanced:ep_b", 0.25)

    gaps = [later.at - earlier.at for earlier, later in itertools.pairwise(slots)]
    assert gaps == [dt.timedelta(seconds=0.25)] * 3
    assert slots[0].wait_s == 0.0
    assert slots[3].wait_s > 0.5
    assert other.wait_s == 0.0


async def test_a_receiver_without_a_rate_is_sent_at_once(pool: Pool) -> None:
    rates = DeliveryRates(pool, {"advanced": FixedRate(None)})

    assert await rates.wait_turn(claimed("ep_a")) == 0.0
    assert await rates.wait_turn(claimed("raw", kind="basic")) == 0.0
    assert await pool.fetchval("SELECT count(*) FROM notify.delivery_rate") == 0


async def test_a_burst_arrives_whole_and_no_faster_than_the_rate(
    database_url: str, pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    rate = 4
    receiver = await receivers()
    deliveries = [new(f"r{i:02d}", receiver.url, key=f"org1/doc{i % 5}") for i in range(12)]
    await enqueue(pool, deliveries)
    limited = {"basic": FixedRate(rate)}
    other_pool = await create_pool(database_url, max_size=6)
    try:
        async with (
            worker(pool, rate_sources=limited, agent="replica-a"),
            worker(other_pool, rate_sources=limited, agent="replica-b"),
        ):
            await eventually(
                lambda: all_in(pool, "succeeded", 12), timeout_s=20, what="12 deliveries"
            )
    finally:
        await other_pool.close()

    assert receiver.counts() == Counter({d.webhook_id: 1 for d in deliveries})
    at = receiver.arrived_at
    # Never more than `rate` arrivals within a second, whichever replica sent them.
    assert min(at[i + rate] - at[i] for i in range(len(at) - rate)) >= 1.0 - LATE_S
    assert at[-1] - at[0] >= (len(at) - 1) / rate - LATE_S
