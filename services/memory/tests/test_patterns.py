"""When a group of judgments is a pattern, and how it reads."""

from __future__ import annotations

from redline.memory.patterns.service import confidence, describe, enforcement_rate
from redline.memory.patterns.storage import GroupRow


def _group(decisions: dict[str, int], content_type: str | None = "tone") -> GroupRow:
    return GroupRow(
        api_key="k",
        pattern_id="p",
        workspace_id="w",
        organization_id=None,
        content_type=content_type,
        centroid=[1.0],
        size=sum(decisions.values()),
        decisions=decisions,
        reviewers=["a"],
        record_ids=[],
        representative="Too casual for a contract.",
        discovered_at=0,
        updated_at=0,
    )


def test_a_clear_majority_of_three_or_more_is_described() -> None:
    described = describe(_group({"rejected": 9, "approved": 1}))
    assert described is not None
    text, score = described
    assert text == "Reviewers reject tone items like “Too casual for a contract.” (9 of 10)"
    assert score == confidence(9, 10)


def test_small_or_split_groups_are_not_patterns() -> None:
    assert describe(_group({"rejected": 2})) is None
    assert describe(_group({"rejected": 3, "approved": 3})) is None


def test_confidence_grows_with_the_group() -> None:
    assert confidence(3, 3) == 0.6
    assert confidence(3, 3) < confidence(30, 30) < 1
    assert confidence(9, 10) < confidence(10, 10)


def test_the_enforcement_rate_is_the_majority_share() -> None:
    assert enforcement_rate(_group({"rejected": 9, "approved": 1})) == 0.9
    assert enforcement_rate(_group({"approved": 2, "rejected": 1})) == 0.6667
