"""The retry schedule: each wait within its jitter, none after the last."""

from __future__ import annotations

import random

import pytest

from redline.notify.deliveries.schedule import RetrySchedule

WAITS = [5.0, 300.0, 1800.0, 7200.0]


@pytest.mark.parametrize("failures", [1, 2, 3, 4])
def test_each_wait_stays_within_its_jitter(failures: int) -> None:
    schedule = RetrySchedule(WAITS, jitter=0.1)
    rng = random.Random(failures)
    base = WAITS[failures - 1]

    waits = []
    for _ in range(500):
        wait = schedule.next_wait_s(failures, rng)
        assert wait is not None
        waits.append(wait)

    assert all(base * 0.9 <= wait <= base * 1.1 for wait in waits)
    # The jitter is applied, in both directions: the waits are spread, not one value.
    assert min(waits) < base * 0.95
    assert max(waits) > base * 1.05


def test_there_is_no_wait_after_the_last_one() -> None:
    schedule = RetrySchedule(WAITS, jitter=0.1)

    assert schedule.next_wait_s(len(WAITS)) is not None
    assert schedule.next_wait_s(len(WAITS) + 1) is None
    assert schedule.next_wait_s(len(WAITS) + 10) is None


def test_an_empty_schedule_never_retries() -> None:
    assert RetrySchedule([], jitter=0.1).next_wait_s(1) is None


def test_without_jitter_the_waits_are_exact() -> None:
    schedule = RetrySchedule(WAITS, jitter=0.0)

    assert [schedule.next_wait_s(n) for n in range(1, len(WAITS) + 2)] == [*WAITS, None]


def test_the_module_random_source_is_used_without_one_given() -> None:
    schedule = RetrySchedule([10.0], jitter=0.5)
    waits = {schedule.next_wait_s(1) for _ in range(50)}

    assert all(w is not None and 5.0 <= w <= 15.0 for w in waits)
    assert len(waits) > 1


def test_a_wait_is_never_negative() -> None:
    schedule = RetrySchedule([1.0], jitter=3.0)
    rng = random.Random(7)

    waits = [schedule.next_wait_s(1, rng) for _ in range(200)]

    assert all(w is not None and w >= 0.0 for w in waits)
    assert 0.0 in waits  # draws below -1 are clamped, not turned into a negative wait
