"""When a reviewer's standard counts as having evolved."""

from __future__ import annotations

from redline.memory.profiles.service import evolved
from redline.memory.profiles.storage import ByContentType


def _row(content_type: str, recent: tuple[int, int], older: tuple[int, int]) -> ByContentType:
    return ByContentType(
        content_type=content_type,
        judgments=sum(recent) + sum(older),
        approvals=recent[0] + older[0],
        rejections=recent[1] + older[1],
        recent_approvals=recent[0],
        recent_rejections=recent[1],
        older_approvals=older[0],
        older_rejections=older[1],
    )


def test_a_move_of_25_points_or_more_is_an_evolved_standard() -> None:
    [shift] = evolved(
        [
            _row("claims", recent=(1, 4), older=(8, 2)),  # 20% now, 80% before
            _row("tone", recent=(5, 5), older=(6, 4)),  # 50% and 60%: steady
        ],
        recent_from=1_000,
    )

    assert shift.topic == "claims"
    assert shift.shiftDate == 1_000
    assert shift.oldPattern == "Approved 80% (8 of 10) from 365 to 90 days ago."
    assert shift.newPattern == "Approved 20% (1 of 5) in the last 90 days."


def test_a_window_with_too_few_decisions_is_not_compared() -> None:
    assert evolved([_row("claims", recent=(0, 2), older=(9, 0))], recent_from=0) == []
