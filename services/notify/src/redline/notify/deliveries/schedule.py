"""When a failed delivery is tried again: a fixed schedule of waits, each with some jitter so
that retries to one receiver do not arrive together."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RetrySchedule:
    waits_s: Sequence[float]
    jitter: float = 0.1  # each wait is scaled by a factor in [1 - jitter, 1 + jitter]

    def next_wait_s(self, round_failures: int, rng: random.Random | None = None) -> float | None:
        """The wait after the `round_failures`-th failure in a row (1-based); None when the
        schedule is exhausted and the delivery has failed for good."""
        if round_failures > len(self.waits_s):
            return None
        draw = (rng or random).uniform(-self.jitter, self.jitter)
        return max(0.0, self.waits_s[round_failures - 1] * (1.0 + draw))
