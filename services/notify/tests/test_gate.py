"""Whether an event goes through follows the settings in force when it happened."""

from __future__ import annotations

import pytest

from redline.notify.gate import on_at

SWITCHED = 1_000


@pytest.mark.parametrize(
    ("on_now", "switched_at", "at", "expected"),
    [
        (True, None, 500, True),  # never switched: its position now
        (False, None, 500, False),
        (True, SWITCHED, 999, False),  # turned on after the event: it was off
        (True, SWITCHED, 1_000, True),  # turned on as the event happened
        (True, SWITCHED, 1_001, True),
        (False, SWITCHED, 999, True),  # turned off after the event: it was on
        (False, SWITCHED, 1_001, False),
    ],
)
def test_a_switch_is_read_at_the_event_s_time(
    on_now: bool, switched_at: int | None, at: int, expected: bool
) -> None:
    assert on_at(on_now, switched_at, at) is expected
