"""A small in-process cache whose entries expire after a fixed time.

Used where an answer may be seconds stale and is dropped at once by an event when it changes
(credential checks, identity's workspace documents).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class TtlCache(Generic[K, V]):
    def __init__(self, ttl_s: float, max_entries: int = 100_000) -> None:
        self._ttl_s = ttl_s
        self._max_entries = max_entries
        self._entries: dict[K, tuple[float, V]] = {}
        # Bumped by every drop. A value computed while a drop happened may predate the change
        # the drop announced, so `put(..., since=epoch)` refuses to store it.
        self._epoch = 0

    @property
    def epoch(self) -> int:
        return self._epoch

    def get(self, key: K) -> V | None:
        hit = self._entries.get(key)
        if hit is None:
            return None
        if hit[0] <= time.monotonic():
            self._entries.pop(key, None)
            return None
        return hit[1]

    def put(self, key: K, value: V, *, since: int | None = None) -> None:
        """Store `value`; with `since` (an earlier `epoch`), only if nothing was dropped since."""
        if self._ttl_s <= 0 or (since is not None and since != self._epoch):
            return
        if len(self._entries) >= self._max_entries:
            # Crude but bounded: a full cache starts over rather than tracking recency.
            self._entries.clear()
        self._entries[key] = (time.monotonic() + self._ttl_s, value)

    def drop(self, key: K) -> None:
        self._epoch += 1
        self._entries.pop(key, None)

    def drop_where(self, predicate: Callable[[K], bool]) -> None:
        self._epoch += 1
        for key in [k for k in self._entries if predicate(k)]:
            del self._entries[key]
