import pytest

from redline.memory.knowledge.files.obligation import states_obligation


@pytest.mark.parametrize(
    "text",
    [
        "Agents must verify identity.",
        "Never share passwords.",
        "Always greet the caller.",
        "You should log the call.",
        "The agent shall escalate.",
        "Do not promise dates.",
        "Don\u2019t read card numbers aloud.",
        "A receipt is required.",
        "Swearing is prohibited.",
        "Agents may not offer discounts.",
        "Every refund needs to be approved.",
    ],
)
def test_obligations_and_prohibitions_are_recognised(text: str) -> None:
    assert states_obligation(text)


@pytest.mark.parametrize(
    "text", ["Refunds go back to the card.", "Mustard is sold separately.", "Shelves hold stock."]
)
def test_plain_statements_are_not(text: str) -> None:
    assert not states_obligation(text)
