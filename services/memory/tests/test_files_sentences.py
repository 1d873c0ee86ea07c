import pytest

from redline.memory.knowledge.files.sentences import split_sentences


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
