import pytest

from redline.memory.knowledge.files.heading import heading_of


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("Refund Policy", "Refund Policy"),
        ("Terms of Service for the Web Shop", "Terms of Service for the Web Shop"),
        ("ESCALATION RULES", "ESCALATION RULES"),
        ("3. Refunds", "3. Refunds"),
        ("3.1 Scope of the policy", "3.1 Scope of the policy"),
        ("IV. Data Protection", "IV. Data Protection"),
        ("## Returns and exchanges", "Returns and exchanges"),
        ("# Shipping #", "Shipping"),
        ("What Is Covered?", "What Is Covered?"),
    ],
)
def test_headings_are_recognised(line: str, title: str) -> None:
    assert heading_of(line) == title


@pytest.mark.parametrize(
    "line",
    [
        "Refunds are issued within five days.",
        "The agent checks the order number",
        "1. Open the ticket",
        "2. Never Share Passwords.",
        "3.2 Agents must escalate",
        "- Never share passwords",
        "Refund Policy, Terms and Conditions,",
        "A Very Long Title That Goes On And On Past Any Reasonable Length For A Heading Line Here",
        "",
        "42",
    ],
)
def test_sentences_steps_and_list_items_are_not_headings(line: str) -> None:
    assert heading_of(line) is None
