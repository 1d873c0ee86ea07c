from redline.memory.knowledge.files import count_tokens
from redline.memory.knowledge.files.tokens import split_on_words


def test_counts_are_near_1_3_tokens_per_english_word() -> None:
    text = (
        "Customers may ask for a refund within thirty days of purchase, and the agent checks "
        "the order number against the receipt before anything else."
    )
    words = len(text.split())
    assert 1.0 * words <= count_tokens(text) <= 1.5 * words


def test_counts_add_up_over_whitespace() -> None:
    assert count_tokens("alpha, beta") + count_tokens("gamma.") == count_tokens(
        "alpha, beta gamma."
    )


def test_long_words_and_punctuation_cost_more() -> None:
    assert count_tokens("internationalisation") == 4
    assert count_tokens("a-b") == 3


def test_splitting_cuts_between_words_within_the_budget() -> None:
    text = " ".join(f"word{n}" for n in range(100))
    parts = split_on_words(text, 10)
    assert " ".join(parts) == text
    assert all(count_tokens(part) <= 10 for part in parts)


def test_a_word_longer_than_the_budget_is_cut_inside() -> None:
    parts = split_on_words("x" * 100 + " tail", 7)
    assert all(count_tokens(part) <= 7 for part in parts)
    assert "".join(parts).replace(" ", "") == "x" * 100 + "tail"
