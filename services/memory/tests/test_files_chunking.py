from itertools import pairwise

import pytest

from redline.memory.knowledge.files import (
    PDF,
    XLSX,
    Extracted,
    Limits,
    Passage,
    chunk,
    count_tokens,
    extract,
)
from redline.memory.knowledge.files.chunking import header_line, split_on_words
from redline.memory.knowledge.files.sentences import split_sentences
from services.memory.tests.files_support import handbook_pdf, plans_xlsx


def handbook() -> Extracted:
    return extract(handbook_pdf(), PDF, Limits())


def test_no_chunk_is_over_max_tokens_and_no_sentence_is_cut() -> None:
    extracted = handbook()
    chunks = chunk(extracted, target_tokens=60, max_tokens=80, overlap_tokens=20)
    assert all(count_tokens(c.text) <= 80 for c in chunks)
    sentences = {s for p in extracted.passages for s in split_sentences(p.text)}
    for c in chunks:
        for line in c.text.split("\n"):
            assert all(piece in sentences for piece in split_sentences(line)), line


def test_chunks_keep_their_first_page_and_heading() -> None:
    chunks = chunk(handbook(), target_tokens=60, max_tokens=80, overlap_tokens=20)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert (chunks[0].page, chunks[0].heading, chunks[0].text) == (1, None, "Support Handbook")
    assert {c.heading for c in chunks if c.page == 1} == {None, "1. Refunds"}
    assert {c.heading for c in chunks if c.page in (2, 3)} == {"2. ESCALATION"}
    assert chunks[-1].page == 3


def test_each_text_chunk_starts_with_the_last_sentence_of_the_one_before() -> None:
    chunks = chunk(handbook(), target_tokens=60, max_tokens=80, overlap_tokens=30)
    refunds = [c for c in chunks if c.heading == "1. Refunds"]
    assert len(refunds) > 2
    for before, after in pairwise(refunds):
        ending, opening = units(before.text), units(after.text)
        overlap = next(n for n in range(len(opening), 0, -1) if ending[-n:] == opening[:n])
        assert count_tokens(" ".join(opening[:overlap])) <= 30


def units(text: str) -> list[str]:
    return [s for line in text.split("\n") for s in split_sentences(line)]


def test_a_section_break_starts_a_chunk_without_overlap() -> None:
    chunks = chunk(handbook())
    escalation = next(c for c in chunks if c.heading == "2. ESCALATION")
    assert escalation.text.startswith("Supervisors answer")


def test_row_chunks_repeat_the_header_and_never_mix_sheets() -> None:
    extracted = extract(plans_xlsx(), XLSX, Limits())
    chunks = chunk(extracted, target_tokens=30, max_tokens=40, overlap_tokens=0)
    plans = [c for c in chunks if c.sheet == "Plans"]
    contacts = [c for c in chunks if c.sheet == "Contacts"]
    assert len(plans) > 1
    assert all(c.text.startswith("Columns: Plan | Monthly price | Renews | Notes\n") for c in plans)
    assert all(c.text.startswith("Columns: Name | Email\n") for c in contacts)
    rows = [line for c in chunks for line in c.text.split("\n")[1:]]
    assert rows == [p.text for p in extracted.passages]
    assert all(count_tokens(c.text) <= 40 for c in chunks)


def test_a_sentence_over_max_tokens_is_split_on_words() -> None:
    words = [f"clause{n}" for n in range(300)]
    extracted = Extracted([Passage(kind="text", text=" ".join(words) + ".")])
    chunks = chunk(extracted, target_tokens=50, max_tokens=60, overlap_tokens=10)
    assert all(count_tokens(c.text) <= 60 for c in chunks)
    assert set(" ".join(c.text for c in chunks).rstrip(".").split()) == set(words)


def test_a_wide_table_header_takes_at_most_half_a_chunk() -> None:
    header = tuple(f"Column heading number {n}" for n in range(50))
    row = Passage(kind="row", text="Column heading number 0: x", header=header, cells=("x",))
    (only,) = chunk(Extracted([row]), target_tokens=80, max_tokens=100, overlap_tokens=0)
    head, body = only.text.split("\n")
    assert count_tokens(head) <= 50
    assert head.endswith("\u2026")
    assert body == row.text


def test_the_same_input_gives_the_same_chunks() -> None:
    assert chunk(handbook()) == chunk(handbook())


def test_sizes_must_be_consistent() -> None:
    with pytest.raises(ValueError, match="chunk sizes"):
        chunk(handbook(), target_tokens=600, max_tokens=500)


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


def test_the_header_line_lists_the_columns() -> None:
    assert header_line(("Plan", "Price")) == "Columns: Plan | Price"
