"""Which slot a schedule fires at a given instant: the latest at or before it, in the trigger's
zone (DST included), and only while it is fresh."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from redline.workflow.triggers.schedule import due_slot, latest_slot


def ms(year: int, month: int, day: int, hour: int, minute: int, second: int = 0) -> int:
    """Epoch ms of a UTC wall time."""
    return int(datetime(year, month, day, hour, minute, second, tzinfo=UTC).timestamp() * 1000)


def test_a_slot_counts_from_its_first_millisecond() -> None:
    assert latest_slot("0 2 * * *", "UTC", ms(2030, 1, 15, 2, 0)) == ms(2030, 1, 15, 2, 0)
    assert latest_slot("0 2 * * *", "UTC", ms(2030, 1, 15, 2, 0) - 1) == ms(2030, 1, 14, 2, 0)


def test_the_latest_slot_is_the_one_at_or_before_now() -> None:
    now = ms(2030, 1, 15, 10, 7, 31)
    assert latest_slot("*/5 * * * *", "UTC", now) == ms(2030, 1, 15, 10, 5)
    assert latest_slot("* * * * *", "UTC", now) == ms(2030, 1, 15, 10, 7)
    assert latest_slot("0 9 * * 1", "UTC", now) == ms(2030, 1, 14, 9, 0)  # a Monday


def test_slots_are_wall_times_of_the_trigger_zone() -> None:
    # 09:00 in Kathmandu (UTC+05:45) is 03:15 UTC.
    assert latest_slot("0 9 * * *", "Asia/Kathmandu", ms(2030, 1, 15, 4, 0)) == ms(
        2030, 1, 15, 3, 15
    )
    # 02:00 in Los Angeles: 10:00 UTC in winter, 09:00 UTC in summer.
    assert latest_slot("0 2 * * *", "America/Los_Angeles", ms(2030, 1, 15, 12, 0)) == ms(
        2030, 1, 15, 10, 0
    )
    assert latest_slot("0 2 * * *", "America/Los_Angeles", ms(2030, 7, 15, 12, 0)) == ms(
        2030, 7, 15, 9, 0
    )


def test_a_wall_time_the_spring_forward_skips_fires_when_the_clock_jumps() -> None:
    # New York, 2024-03-10: 02:00 EST (07:00 UTC) becomes 03:00 EDT; 02:30 never happens.
    assert latest_slot("30 2 * * *", "America/New_York", ms(2024, 3, 10, 6, 59)) == ms(
        2024, 3, 9, 7, 30
    )
    assert latest_slot("30 2 * * *", "America/New_York", ms(2024, 3, 10, 7, 0)) == ms(
        2024, 3, 10, 7, 0
    )
    # The next day is 02:30 EDT again.
    assert latest_slot("30 2 * * *", "America/New_York", ms(2024, 3, 11, 7, 0)) == ms(
        2024, 3, 11, 6, 30
    )


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        # New York, 2024-11-03: 01:00 to 02:00 happens twice, EDT (05:00 UTC) then EST (06:00 UTC).
        (ms(2024, 11, 3, 5, 30), ms(2024, 11, 3, 5, 30)),
        (ms(2024, 11, 3, 6, 0), ms(2024, 11, 3, 5, 30)),
        # The second 01:30 is no new slot for a daily schedule.
        (ms(2024, 11, 3, 6, 30), None),
        (ms(2024, 11, 3, 6, 45), None),
    ],
)
def test_a_fixed_time_schedule_fires_once_when_the_clock_falls_back(
    now: int, expected: int | None
) -> None:
    assert latest_slot("30 1 * * *", "America/New_York", now) == expected


def test_an_interval_schedule_keeps_real_time_when_the_clock_falls_back() -> None:
    fired = [
        latest_slot("*/30 * * * *", "America/New_York", ms(2024, 11, 3, hour, minute))
        for hour, minute in [(5, 0), (5, 30), (6, 0), (6, 30), (7, 0)]
    ]
    assert fired == [
        ms(2024, 11, 3, 5, 0),
        ms(2024, 11, 3, 5, 30),
        ms(2024, 11, 3, 6, 0),
        ms(2024, 11, 3, 6, 30),
        ms(2024, 11, 3, 7, 0),
    ]


def test_a_cron_naming_no_reachable_date_is_never_due() -> None:
    assert latest_slot("0 0 30 2 *", "UTC", ms(2030, 3, 1, 0, 0)) is None


def test_a_slot_fires_only_while_it_is_fresh() -> None:
    slot = ms(2030, 1, 15, 2, 0)
    window = 15_000
    assert due_slot("0 2 * * *", "UTC", slot, window) == slot
    assert due_slot("0 2 * * *", "UTC", slot + window, window) == slot
    # Later than the window (after downtime, say) the slot is a missed run: never replayed.
    assert due_slot("0 2 * * *", "UTC", slot + window + 1, window) is None
    assert due_slot("0 2 * * *", "UTC", slot + 3_600_000, window) is None
