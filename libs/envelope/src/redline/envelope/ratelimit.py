"""Per-API-key request limits by endpoint tier, a window per minute.

A sliding-window counter: each key keeps the count of the current minute and of the one before,
and the estimate weighs the previous minute by how much of it still lies inside the last 60 s.
That is the usual approximation of a true moving window (within a few percent), at a dictionary
lookup per request: it runs on every request, so it must cost next to nothing.

Counts live in the process: each replica enforces the limit on the traffic it sees, so an
operator running N replicas behind a balancer sets the limit to 1/N of the intended total. This
keeps a network round trip off every request.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from enum import Enum

from redline.envelope.errors import ResourceExhausted


class Tier(Enum):
    GENERAL = "general"
    SEARCH = "search"
    INGEST = "ingest"
    SIGNUP = "signup"  # per client address
    AUTH_FAILURES = "auth_failures"  # per client address
    INBOUND_TRIGGER = "inbound_trigger"  # per inbound webhook trigger (workflow)


MESSAGE = "Rate limit exceeded. Try again after 1 minute."
WINDOW_S = 60.0
_MAX_KEYS = 200_000


class _Counter:
    """Counts of one key: the window that started at `start` and the one before it.

    Windows start at a key's first request rather than on the clock's minute, so a key that
    bursts is told to come back about a minute after its burst began, as a moving window would.
    """

    __slots__ = ("current", "previous", "start")

    def __init__(self, now: float) -> None:
        self.start = now
        self.current = 0
        self.previous = 0

    def roll(self, now: float) -> None:
        if now < self.start + WINDOW_S:
            return
        if now < self.start + 2 * WINDOW_S:
            self.previous, self.current = self.current, 0
            self.start += WINDOW_S
        else:
            self.previous, self.current, self.start = 0, 0, now

    def estimate(self, now: float) -> float:
        into = (now - self.start) / WINDOW_S
        return self.previous * (1.0 - into) + self.current

    def wait_s(self, limit: int, now: float) -> float:
        """Seconds until one more request fits under `limit`."""
        if self.current + 1 > limit:
            # Only the next window can admit it, once enough of this one has slid out.
            share = 1.0 - (limit - 1) / self.current if self.current else 0.0
            return self.start + WINDOW_S + max(0.0, share) * WINDOW_S - now
        # The previous window still weighs too much: wait until it has slid out far enough.
        share = 1.0 - (limit - 1 - self.current) / self.previous
        return self.start + share * WINDOW_S - now


class RateLimiter:
    def __init__(
        self, per_minute: dict[Tier, int], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._limits = {tier: limit for tier, limit in per_minute.items() if limit > 0}
        self._counters: dict[tuple[Tier, str], _Counter] = {}
        self._clock = clock

    def _counter(self, tier: Tier, key: str, now: float) -> _Counter:
        counter = self._counters.get((tier, key))
        if counter is None:
            if len(self._counters) >= _MAX_KEYS:
                self._forget_idle(now)
            counter = self._counters[(tier, key)] = _Counter(now)
        counter.roll(now)
        return counter

    def _forget_idle(self, now: float) -> None:
        # Keys idle for two windows count nothing any more.
        stale = [k for k, c in self._counters.items() if c.start + 2 * WINDOW_S <= now]
        for key in stale:
            del self._counters[key]

    @staticmethod
    def _refuse(counter: _Counter, limit: int, now: float) -> ResourceExhausted:
        wait = math.ceil(counter.wait_s(limit, now))
        return ResourceExhausted(MESSAGE, retry_after_s=min(60, max(1, wait)))

    async def hit(self, tier: Tier, key: str) -> None:
        """Count one request of `key` in `tier`; raise RESOURCE_EXHAUSTED when over the limit."""
        limit = self._limits.get(tier)
        if limit is None:
            return
        now = self._clock()
        counter = self._counter(tier, key, now)
        if counter.estimate(now) + 1 > limit:
            raise self._refuse(counter, limit, now)
        counter.current += 1

    async def check(self, tier: Tier, key: str) -> None:
        """Raise RESOURCE_EXHAUSTED if `key` has used up `tier`, without counting."""
        limit = self._limits.get(tier)
        if limit is None:
            return
        now = self._clock()
        counter = self._counters.get((tier, key))
        if counter is None:
            return
        counter.roll(now)
        if counter.estimate(now) + 1 > limit:
            raise self._refuse(counter, limit, now)

    async def count(self, tier: Tier, key: str) -> None:
        """Count one event of `key` in `tier` without refusing anything now."""
        if tier in self._limits:
            now = self._clock()
            self._counter(tier, key, now).current += 1
