"""Per-API-key request limits by endpoint tier, a window per minute.

Counts live in the process (the `limits` library's memory storage): each replica enforces the limit
on the traffic it sees, so an operator running N replicas behind a balancer sets the limit to 1/N of
the intended total. This keeps the check off the network on every request.
"""

from __future__ import annotations

import math
import time
from enum import Enum

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

from redline.envelope.errors import ResourceExhausted


class Tier(Enum):
    GENERAL = "general"
    SEARCH = "search"
    INGEST = "ingest"
    SIGNUP = "signup"  # per client address
    AUTH_FAILURES = "auth_failures"  # per client address


MESSAGE = "Rate limit exceeded. Try again after 1 minute."


class RateLimiter:
    def __init__(self, per_minute: dict[Tier, int]) -> None:
        self._items = {tier: RateLimitItemPerMinute(limit) for tier, limit in per_minute.items()}
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def _item(self, tier: Tier) -> RateLimitItem | None:
        item = self._items.get(tier)
        return item if item is not None and item.amount > 0 else None

    async def hit(self, tier: Tier, key: str) -> None:
        """Count one request of `key` in `tier`; raise RESOURCE_EXHAUSTED when over the limit."""
        item = self._item(tier)
        if item is not None and not await self._limiter.hit(item, tier.value, key):
            await self._refuse(item, tier, key)

    async def check(self, tier: Tier, key: str) -> None:
        """Raise RESOURCE_EXHAUSTED if `key` has used up `tier`, without counting."""
        item = self._item(tier)
        if item is not None and not await self._limiter.test(item, tier.value, key):
            await self._refuse(item, tier, key)

    async def count(self, tier: Tier, key: str) -> None:
        """Count one event of `key` in `tier` without refusing anything now."""
        item = self._item(tier)
        if item is not None:
            await self._limiter.hit(item, tier.value, key)

    async def _refuse(self, item: RateLimitItem, tier: Tier, key: str) -> None:
        stats = await self._limiter.get_window_stats(item, tier.value, key)
        retry_after = max(1, math.ceil(stats.reset_time - time.time()))
        raise ResourceExhausted(MESSAGE, retry_after_s=retry_after)
