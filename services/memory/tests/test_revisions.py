"""What an update reports: the rules added, removed and kept between two revisions."""

from __future__ import annotations

from redline.memory.knowledge.content import markdown_key
from redline.memory.knowledge.revisions import rule_diff


def test_rules_are_compared_without_case_or_spacing() -> None:
    old = ["Staff must never refund in cash.", "Refunds must reach the card in 14 days."]
    new = ["staff must  never refund in cash.", "A team lead must approve refunds."]

    diff = rule_diff(old, new)

    assert diff.added == ["A team lead must approve refunds."]
    assert diff.removed == ["Refunds must reach the card in 14 days."]
    assert diff.unchanged == 1


def test_each_revision_keeps_its_markdown_apart() -> None:
    assert markdown_key("k/src_1", 1) == "k/src_1.md"
    assert markdown_key("k/src_1", 2) == "k/src_1.r2.md"
    assert markdown_key("k/src_1", 2) != markdown_key("k/src_1", 3)
