"""Receivers' own rates: a receiver that asks for at most N deliveries a second (an advanced
webhook endpoint's `rateLimit`) gets them at least 1/N seconds apart, across every replica.

Nothing is dropped: a delivery waits for its slot, claimed, with its lease renewed, and is then
sent as any other (the signature's timestamp is the moment of sending). The time a delivery
waited counts toward its receiver's pace (see `pace`), as if the receiver had taken that long to
answer: the worker then holds about as many of its deliveries as it has requests in flight, and
gives the rest back to the queue, so that a slow rate keeps no other receiver waiting.

Each kind of delivery says what rate its receiver asked for (`RateSource`); a kind without one,
or a receiver without a rate, is sent at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Protocol

from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import ClaimedDelivery
from redline.pg import Pool


class RateSource(Protocol):
    """The rate (deliveries per second) one kind of delivery's receiver asked for; None: none,
    or not known now (the delivery is then judged when its headers are read)."""

    async def rate_of(self, delivery: ClaimedDelivery) -> int | None: ...


def receiver_of(delivery: ClaimedDelivery) -> str:
    return f"{delivery.kind}:{delivery.target}"


class DeliveryRates:
    def __init__(self, pool: Pool, sources: Mapping[str, RateSource]) -> None:
        self._pool = pool
        self._sources = dict(sources)

    async def wait_turn(self, delivery: ClaimedDelivery) -> float:
        """Wait for the delivery's slot at its receiver, if the receiver has a rate; returns how
        long it waited."""
        source = self._sources.get(delivery.kind)
        rate = None if source is None else await source.rate_of(delivery)
        if rate is None or rate <= 0:
            return 0.0
        async with self._pool.acquire() as conn:
            slot = await storage.take_slot(conn, receiver_of(delivery), 1.0 / rate)
        if slot.wait_s > 0:
            await asyncio.sleep(slot.wait_s)
        return slot.wait_s
