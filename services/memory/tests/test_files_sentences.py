import pytest

from redline.memory.knowledge.files.sentences import split_sentences, states_obligation


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
        (
            "Check the order, e.g. A-1234. Then refund.",
            ["Check the order, e.g. A-1234.", "Then refund."],
        ),
        ("Ask Dr. Smith first. Then Mr. Jones.", ["Ask Dr. Smith first.", "Then Mr. Jones."]),
        ("Sent to J. R. Smith today. Done.", ["Sent to J. R. Smith today.", "Done."]),
        (
            "Prices rose 2.5 percent. See Fig. 3 below.",
            ["Prices rose 2.5 percent.", "See Fig. 3 below."],
        ),
        ('He said "Stop." Then left.', ['He said "Stop."', "Then left."]),
        ("lower case after a stop. stays joined", ["lower case after a stop. stays joined"]),
        ("Step 1 done. 2 more to go.", ["Step 1 done.", "2 more to go."]),
        ("", []),
    ],
)
def test_sentences_split_at_their_ends(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


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
