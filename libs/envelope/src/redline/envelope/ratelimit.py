"""Per-API-key request limits by endpoint tier, a window per minute, held across replicas.

A sliding-window counter: each key keeps the count of the current minute and of the one before,
and the estimate weighs the previous minute by how much of it still lies inside the last 60 s.
That is the usual approximation of a true moving window (within a few percent), at a dictionary
lookup per request: it runs on every request, so it must cost next to nothing.

The counts in this process are a cache of shared ones (`SharedCounts`, PostgreSQL in a
deployment): each process counts locally and folds its new counts into the shared counter in
the background (`sync`, every second or so), reading back every process's total. A request
waits for nothing, except when its key has gathered `unsynced_allowance(limit)` (a twentieth of
the limit, at least one) counts since the last fold: then it waits for one fold. So each
process admits at most that many requests of a key on a stale view, and N replicas together
admit at most the limit plus N times that allowance. When the shared counter cannot be reached
the process keeps counting on its own (the limit holds per process) and hands its counts over
once it is back.

Memory is bounded: at most `max_keys` keys, the least recently used forgotten first, and keys
idle for two windows swept a few at a time as new ones arrive. Client addresses (the sign-up and
failed-credential tiers) that are IPv6 count by their /64, the block one subscriber holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from redline.envelope.errors import ResourceExhausted

log = logging.getLogger("redline.envelope.ratelimit")


class Tier(Enum):
    GENERAL = "general"
    SEARCH = "search"
    INGEST = "ingest"
    SIGNUP = "signup"  # per client address
    AUTH_FAILURES = "auth_failures"  # per client address
    INBOUND_TRIGGER = "inbound_trigger"  # per inbound webhook trigger (workflow)


_ADDRESS_TIERS = frozenset({Tier.SIGNUP, Tier.AUTH_FAILURES})

MESSAGE = "Rate limit exceeded. Try again after 1 minute."
WINDOW_S = 60.0
MAX_KEYS = 200_000
# Idle keys looked at per new key: the sweep keeps pace with arrivals without a full scan.
_SWEEP_PER_NEW_KEY = 2
# Each process may admit this share of a limit per key before the others have heard of it.
_UNSYNCED_SHARE = 20
# How long a request waits for a fold before it is decided on this process's counts alone, and
# how long after a failed fold requests stop waiting for one.
FOLD_WAIT_S = 0.5
DEGRADED_S = 5.0
# Keys folded per round trip: a fold of many keys is several bounded statements.
FOLD_BATCH = 5_000


def unsynced_allowance(limit: int) -> int:
    """Requests of one key a process admits before it folds its counts into the shared ones."""
    return max(1, limit // _UNSYNCED_SHARE)


def limit_key(tier: Tier, key: str) -> str:
    """The key `tier` counts `key` under: an IPv6 client address by its /64."""
    if tier not in _ADDRESS_TIERS or ":" not in key:
        return key  # an API key, a workspace, an IPv4 address: parsing costs more than the rest
    try:
        address = ipaddress.ip_address(key)
    except ValueError:
        return key
    if not isinstance(address, ipaddress.IPv6Address):
        return key
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.IPv6Network((address, 64), strict=False))


@dataclass(frozen=True)
class Delta:
    """Counts of one key this process made since its last fold, in its window from `start`."""

    tier: Tier
    key: str
    start: float
    count: int


@dataclass(frozen=True)
class Totals:
    """Every process's counts of one key, as the shared counter holds them after a fold."""

    start: float
    current: int
    previous: int


class SharedCounts(Protocol):
    async def fold(self, deltas: Sequence[Delta], now: float) -> Sequence[Totals]:
        """Add `deltas` to the shared counts (rolling windows as of `now`); return each key's
        totals, in the order of `deltas`. Raises when the store cannot be reached."""
        ...


class _Counter:
    """Counts of one key: the window that started at `start` and the one before it.

    Windows start at a key's first request rather than on the clock's minute, so a key that
    bursts is told to come back about a minute after its burst began, as a moving window would.
    `current` includes `pending`, the counts not yet folded into the shared counter.
    """

    __slots__ = ("current", "pending", "previous", "start")

    def __init__(self, now: float) -> None:
        self.start = now
        self.current = 0
        self.previous = 0
        self.pending = 0

    def roll(self, now: float) -> None:
        if now < self.start + WINDOW_S:
            return
        # Counts of a window that ended before they were folded are not carried into the next.
        self.pending = 0
        if now < self.start + 2 * WINDOW_S:
            self.previous, self.current = self.current, 0
            self.start += WINDOW_S
        else:
            self.previous, self.current, self.start = 0, 0, now

    def idle(self, now: float) -> bool:
        return self.start + 2 * WINDOW_S <= now

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


CounterKey = tuple[Tier, str]


class RateLimiter:
    def __init__(
        self,
        per_minute: dict[Tier, int],
        clock: Callable[[], float] = time.time,
        *,
        shared: SharedCounts | None = None,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self._limits = {tier: limit for tier, limit in per_minute.items() if limit > 0}
        # Least recently used first.
        self._counters: OrderedDict[CounterKey, _Counter] = OrderedDict()
        self._clock = clock
        self._max_keys = max_keys
        self._shared = shared
        self._unfolded: dict[CounterKey, None] = {}  # keys with pending counts, in order
        self._folding: asyncio.Task[bool] | None = None
        self._degraded_until = 0.0

    @property
    def keys(self) -> int:
        return len(self._counters)

    def _counter(self, tier: Tier, key: str, now: float) -> _Counter:
        name = (tier, key)
        counter = self._counters.get(name)
        if counter is None:
            self._sweep(now)
            if len(self._counters) >= self._max_keys:
                self._forget(next(iter(self._counters)))
            counter = self._counters[name] = _Counter(now)
        else:
            self._counters.move_to_end(name)
        counter.roll(now)
        return counter

    def _sweep(self, now: float) -> None:
        # The least recently used keys come first: those idle for two windows count nothing.
        for _ in range(_SWEEP_PER_NEW_KEY):
            oldest = next(iter(self._counters), None)
            if oldest is None or not self._counters[oldest].idle(now):
                return
            self._forget(oldest)

    def _forget(self, name: CounterKey) -> None:
        del self._counters[name]
        self._unfolded.pop(name, None)

    @staticmethod
    def _refuse(counter: _Counter, limit: int, now: float) -> ResourceExhausted:
        wait = math.ceil(counter.wait_s(limit, now))
        return ResourceExhausted(MESSAGE, retry_after_s=min(60, max(1, wait)))

    async def _fresh(self, tier: Tier, key: str, limit: int) -> tuple[_Counter, float]:
        """The counter of `key`, folded first when it has admitted its unsynced allowance."""
        now = self._clock()
        counter = self._counter(tier, key, now)
        allowance = unsynced_allowance(limit)
        for _ in range(2):  # a fold under way may have started before these counts
            if counter.pending < allowance or not self._may_wait(now):
                break
            await self._wait_for_fold()
            now = self._clock()
            counter = self._counter(tier, key, now)
        return counter, now

    def _may_wait(self, now: float) -> bool:
        return self._shared is not None and now >= self._degraded_until

    def _add(self, tier: Tier, key: str, counter: _Counter) -> None:
        counter.current += 1
        if self._shared is not None:
            counter.pending += 1
            self._unfolded[(tier, key)] = None

    async def hit(self, tier: Tier, key: str) -> None:
        """Count one request of `key` in `tier`; raise RESOURCE_EXHAUSTED when over the limit."""
        limit = self._limits.get(tier)
        if limit is None:
            return
        key = limit_key(tier, key)
        counter, now = await self._fresh(tier, key, limit)
        if counter.estimate(now) + 1 > limit:
            raise self._refuse(counter, limit, now)
        self._add(tier, key, counter)

    async def check(self, tier: Tier, key: str) -> None:
        """Raise RESOURCE_EXHAUSTED if `key` has used up `tier`, without counting."""
        limit = self._limits.get(tier)
        if limit is None:
            return
        key = limit_key(tier, key)
        if (tier, key) not in self._counters:
            return
        counter, now = await self._fresh(tier, key, limit)
        if counter.estimate(now) + 1 > limit:
            raise self._refuse(counter, limit, now)

    async def count(self, tier: Tier, key: str) -> None:
        """Count one event of `key` in `tier` without refusing anything now."""
        if tier in self._limits:
            key = limit_key(tier, key)
            self._add(tier, key, self._counter(tier, key, self._clock()))

    async def _wait_for_fold(self) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(self._fold_task()), FOLD_WAIT_S)
        except TimeoutError:
            self._degrade("the shared rate limit counter is slow to answer")

    def _fold_task(self) -> asyncio.Task[bool]:
        if self._folding is None or self._folding.done():
            self._folding = asyncio.create_task(self._fold(), name="rate-limit-fold")
        return self._folding

    async def sync(self) -> bool:
        """Fold this process's new counts into the shared ones and read back the totals; False
        when the shared counter could not be reached (the counts wait for the next fold)."""
        if self._shared is None:
            return False
        return await asyncio.shield(self._fold_task())

    async def run(self, interval_s: float) -> None:
        """Fold every `interval_s` until cancelled; the task a service runs beside its API."""
        while True:
            await asyncio.sleep(interval_s)
            await self.sync()

    async def _fold(self) -> bool:
        assert self._shared is not None
        # The keys waiting now, in bounded batches; counts that arrive meanwhile go next time.
        for _ in range(math.ceil(len(self._unfolded) / FOLD_BATCH)):
            names = list(itertools.islice(self._unfolded, FOLD_BATCH))
            deltas = self._take(names)
            if not deltas:
                continue
            now = self._clock()
            try:
                totals = await self._shared.fold(deltas, now)
            except Exception as exc:
                self._give_back(deltas)
                self._degrade(f"the shared rate limit counter failed: {exc!r}")
                return False
            self._adopt(deltas, totals)
        if self._degraded_until:
            log.info("rate limits are shared again")
            self._degraded_until = 0.0
        return True

    def _take(self, names: list[CounterKey]) -> list[Delta]:
        deltas: list[Delta] = []
        for name in names:
            del self._unfolded[name]
            counter = self._counters.get(name)
            if counter is not None and counter.pending:
                deltas.append(Delta(name[0], name[1], counter.start, counter.pending))
                counter.pending = 0
        return deltas

    def _give_back(self, deltas: list[Delta]) -> None:
        for delta in deltas:
            counter = self._counters.get((delta.tier, delta.key))
            if counter is not None and counter.start == delta.start:
                counter.pending += delta.count
                self._unfolded[(delta.tier, delta.key)] = None

    def _adopt(self, deltas: Sequence[Delta], totals: Sequence[Totals]) -> None:
        for delta, total in zip(deltas, totals, strict=True):
            counter = self._counters.get((delta.tier, delta.key))
            if counter is None:
                continue
            # What this process counted while the fold was under way stays on top.
            counter.start = total.start
            counter.previous = total.previous
            counter.current = total.current + counter.pending

    def _degrade(self, why: str) -> None:
        if not self._degraded_until:
            log.warning("%s; limits are counted per process until it answers", why)
        self._degraded_until = self._clock() + DEGRADED_S

    async def close(self) -> None:
        """Hand over what is still counted here, waiting a little for it, then stop folding."""
        if self._shared is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._fold_task(), 4 * FOLD_WAIT_S)
