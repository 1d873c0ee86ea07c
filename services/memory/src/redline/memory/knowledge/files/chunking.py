"""Passages into chunks for embedding: whole sentences and rows packed to a token target,
never over a maximum, text chunks overlapping by their last sentences, table chunks each
opening with their table's header.

A text's length in model tokens is approximated here, and only here (`count_tokens`); a text too
long for a chunk is cut between words as a last resort (`split_on_words`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import groupby, pairwise
from typing import NamedTuple

import msgspec

from redline.memory.knowledge.files.passage import Extracted, Passage
from redline.memory.knowledge.files.sentences import split_sentences


class Chunk(msgspec.Struct, frozen=True, kw_only=True):
    """`page` is where the chunk's text begins; a chunk never spans sheets or headings."""

    index: int
    text: str
    page: int | None = None
    sheet: str | None = None
    heading: str | None = None


class _Unit(NamedTuple):
    """A sentence or row: the smallest piece a chunk holds (a part of one only if too long)."""

    text: str
    tokens: int
    page: int | None
    passage: int


class _Budget(NamedTuple):
    target: int
    max: int
    overlap: int


def chunk(
    extracted: Extracted,
    *,
    target_tokens: int = 400,
    max_tokens: int = 500,
    overlap_tokens: int = 60,
) -> list[Chunk]:
    """The chunks of `extracted` in document order; the same input gives the same chunks."""
    if not 0 <= overlap_tokens < target_tokens <= max_tokens or max_tokens < 2:
        raise ValueError(
            "chunk sizes need 0 <= overlap_tokens < target_tokens <= max_tokens, max_tokens >= 2"
        )
    chunks: list[Chunk] = []
    numbered = enumerate(extracted.passages)
    for _, run in groupby(numbered, key=lambda item: _section(item[1])):
        group = list(run)
        first = group[0][1]
        if first.kind == "row":
            texts = _table_chunks(group, first.header, max_tokens, target_tokens)
        else:
            texts = _text_chunks(group, _Budget(target_tokens, max_tokens, overlap_tokens))
        for text, page in texts:
            chunks.append(
                Chunk(
                    index=len(chunks),
                    text=text,
                    page=page,
                    sheet=first.sheet,
                    heading=first.heading,
                )
            )
    return chunks


def _section(passage: Passage) -> tuple[object, ...]:
    """Passages that may share a chunk: same kind, sheet and heading, and for rows one table."""
    header = passage.header if passage.kind == "row" else ()
    return (passage.kind, passage.sheet, passage.heading, header)


def _text_chunks(
    group: Sequence[tuple[int, Passage]], budget: _Budget
) -> list[tuple[str, int | None]]:
    units = [
        _Unit(part, count_tokens(part), passage.page, number)
        for number, passage in group
        for sentence in split_sentences(passage.text)
        for part in _fitted(sentence, budget.max, budget.target)
    ]
    return [(_joined(packed), packed[0].page) for packed in _packed(units, budget)]


def _table_chunks(
    group: Sequence[tuple[int, Passage]], header: Sequence[str], max_tokens: int, target: int
) -> list[tuple[str, int | None]]:
    head = _head(header, max_tokens)
    room = max_tokens - count_tokens(head)
    budget = _Budget(target=max(target - count_tokens(head), 1), max=room, overlap=0)
    units = [
        _Unit(part, count_tokens(part), passage.page, number)
        for number, passage in group
        for part in _fitted(passage.text, room, room)
    ]
    return [(head + "\n" + _joined(packed), packed[0].page) for packed in _packed(units, budget)]


def _head(header: Sequence[str], max_tokens: int) -> str:
    """The header line, cut to half a chunk: a table of many columns has a long one, and each
    row's text names its columns anyway."""
    line = header_line(header)
    half = max_tokens // 2
    if count_tokens(line) <= half:
        return line
    return split_on_words(line, half - 1)[0] + " \u2026"


def _fitted(text: str, max_tokens: int, part_tokens: int) -> list[str]:
    """`text` whole if it fits in a chunk, else cut between words as a last resort."""
    if count_tokens(text) <= max_tokens:
        return [text]
    return split_on_words(text, part_tokens)


def _packed(units: Iterable[_Unit], budget: _Budget) -> list[list[_Unit]]:
    packed: list[list[_Unit]] = []
    current: list[_Unit] = []
    tokens = 0
    fresh = 0  # units in `current` that no earlier chunk holds
    for unit in units:
        if fresh and tokens + unit.tokens > budget.target:
            packed.append(current)
            current = _overlap(current, min(budget.overlap, budget.max - unit.tokens))
            tokens, fresh = sum(held.tokens for held in current), 0
        current.append(unit)
        tokens += unit.tokens
        fresh += 1
    if fresh:
        packed.append(current)
    return packed


def _overlap(previous: Sequence[_Unit], max_tokens: int) -> list[_Unit]:
    """The last units of `previous` that fit in `max_tokens` together."""
    taken = 0
    start = len(previous)
    while start > 0 and taken + previous[start - 1].tokens <= max_tokens:
        start -= 1
        taken += previous[start].tokens
    return list(previous[start:])


def _joined(units: Sequence[_Unit]) -> str:
    """Sentences of one passage run on; each passage starts a line."""
    parts = [units[0].text]
    for before, unit in pairwise(units):
        parts.append((" " if unit.passage == before.passage else "\n") + unit.text)
    return "".join(parts)


def header_line(header: Sequence[str]) -> str:
    """The line that introduces a table's rows in a chunk."""
    return "Columns: " + " | ".join(header)


# Tokens

# Subword tokenisers spend about one token per short word, more on long words and one per
# punctuation mark; pieces of up to six word characters land near 1.3 tokens per English word.
_PIECE = re.compile(r"\w{1,6}|[^\w\s]")


def count_tokens(text: str) -> int:
    """About how many tokens `text` is; additive over texts joined by whitespace."""
    return sum(1 for _ in _PIECE.finditer(text))


def split_on_words(text: str, max_tokens: int) -> list[str]:
    """`text` in parts of at most `max_tokens` each, cut between words; a single word longer
    than that (a pasted hash or URL) is cut inside."""
    parts: list[str] = []
    words: list[str] = []
    tokens = 0
    for word in _words_within(text, max_tokens):
        size = count_tokens(word)
        if words and tokens + size > max_tokens:
            parts.append(" ".join(words))
            words, tokens = [], 0
        words.append(word)
        tokens += size
    if words:
        parts.append(" ".join(words))
    return parts


def _words_within(text: str, max_tokens: int) -> list[str]:
    words: list[str] = []
    for word in text.split():
        if count_tokens(word) <= max_tokens:
            words.append(word)
        else:
            # Every token covers at least one character, so this many characters always fit.
            words.extend(word[i : i + max_tokens] for i in range(0, len(word), max_tokens))
    return words
