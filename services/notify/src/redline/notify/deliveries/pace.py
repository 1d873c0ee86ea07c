"""How many deliveries to one URL a worker holds at once: enough to keep its requests in flight
until the next claim, and no more.

A worker sends at most `per_url_limit` requests to a URL at once. Deliveries claimed beyond
those wait in the URL's line, so that a receiver answering in a millisecond is not left idle
between one claim and the next: at a millisecond an answer, 8 requests in flight go through
some 400 deliveries in the 50 ms between claims. A slow receiver gains nothing from a line: its
claims would sit there for minutes, holding places of the worker's `process_limit` that other
receivers need. So each URL's window follows its receiver's pace: from what its recent
answers took, how many deliveries its requests get through in `CLAIM_AHEAD_S`, never fewer
than its requests in flight nor more than `per_url_window` (the cap across replicas).

A URL seen for the first time gets just its requests in flight; its first answers widen the
window at the next claim.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import NamedTuple

from redline.notify.deliveries.storage import Wanted

# How far ahead a window lasts: several times the usual span from one claim to the next (a
# claim, the gap before the next, and the writing of results), so that lines do not run dry.
CLAIM_AHEAD_S = 0.05
# Weight of each new answer's time in a URL's running estimate.
SMOOTHING = 0.25
# An answer counts for at most this many times the estimate: one slow answer among fast ones
# narrows the window a little, a receiver that has turned slow narrows it within a few answers.
OUTLIER_FACTOR = 8.0
# A line whose deliveries would wait longer than this at the receiver's pace gives back those
# beyond its window. Far longer than a fast receiver's line ever waits, so that a passing stall
# (one slow answer, a busy moment on this side) does not give back claims only to take them again.
GIVE_BACK_AFTER_S = 1.0
# A wide window is sent with each claim while its receiver answered within this long. A claim
# then names only the receivers busy lately, however many fast ones the worker has met; one
# that comes back after a pause takes the requests in flight once, and its first answers widen
# its window again.
NAMED_FOR_S = 10.0
# URLs whose pace is remembered, least recently answered forgotten first (per-execution
# workflow receivers are many, each seen a few times).
REMEMBERED_URLS = 4096


def run_limit(per_url_window: int, per_url_limit: int) -> int:
    """Deliveries of one ordering key claimed at once, sent back to back by one task: a
    document's backlog moves a run per claim, not one delivery per claim and record. As many
    as let each of a URL's tasks hold a run when its window is full."""
    return max(1, per_url_window // per_url_limit)


class _Pace(NamedTuple):
    latency_s: float  # the running estimate
    window: int  # what it makes of the window
    answered_at: float


class UrlPaces:
    def __init__(
        self,
        per_url_limit: int,
        per_url_window: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._limit = per_url_limit
        self._cap = max(per_url_limit, per_url_window)
        self._clock = clock
        # Least recently answered first.
        self._paces: OrderedDict[str, _Pace] = OrderedDict()

    def observe(self, url: str, latency_s: float) -> None:
        """An answer (or a failure) from `url` took `latency_s`."""
        pace = self._paces.pop(url, None)
        if pace is None:
            estimate = latency_s
        else:
            sample = min(latency_s, pace.latency_s * OUTLIER_FACTOR)
            estimate = pace.latency_s + SMOOTHING * (sample - pace.latency_s)
        self._paces[url] = _Pace(estimate, self._window_for(estimate), self._clock())
        if len(self._paces) > REMEMBERED_URLS:
            self._paces.popitem(last=False)

    def window(self, url: str) -> int:
        """How many deliveries to `url` this worker may hold (being sent or waiting)."""
        pace = self._paces.get(url)
        return self._limit if pace is None else pace.window

    def excess(self, url: str, held: int) -> int:
        """How many of the `held` deliveries to `url` to give back: those beyond its window once
        the last of them would wait more than `GIVE_BACK_AFTER_S`, else none."""
        pace = self._paces.get(url)
        if pace is None or held * pace.latency_s / self._limit <= GIVE_BACK_AFTER_S:
            return 0
        return max(0, held - pace.window)

    def wanted(self, held: Mapping[str, int]) -> dict[str, Wanted]:
        """What this worker would claim more of each URL, given how many it holds of each: the
        places left in its window, in runs that let each of its requests carry one when the
        window is full. Named: every URL held, and every URL with a window wider than
        `per_url_limit` that answered within `NAMED_FOR_S`; any other would take
        `per_url_limit` deliveries, one per line."""
        wanted: dict[str, Wanted] = {}
        since = self._clock() - NAMED_FOR_S
        for url in reversed(self._paces):
            pace = self._paces[url]
            if pace.answered_at < since:
                break
            if pace.window > self._limit:
                wanted[url] = Wanted(pace.window, run_limit(pace.window, self._limit))
        for url, count in held.items():
            window = self.window(url)
            wanted[url] = Wanted(max(0, window - count), run_limit(window, self._limit))
        return wanted

    def _window_for(self, latency_s: float) -> int:
        if latency_s <= 0:
            return self._cap
        ahead = math.ceil(self._limit * CLAIM_AHEAD_S / latency_s)
        return max(self._limit, min(self._cap, ahead))
