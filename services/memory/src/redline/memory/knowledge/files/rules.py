"""Rules stated in a document: each sentence, list item or table cell that obliges or forbids,
filed under the heading it sits beneath."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from redline.memory.knowledge.files.limits import Limits
from redline.memory.knowledge.files.passage import Extracted, Passage
from redline.memory.knowledge.files.sentences import split_sentences, states_obligation
from redline.memory.knowledge.files.text import without_marker


class Rule(msgspec.Struct, frozen=True, kw_only=True):
    """`category` is the heading (or, for a table, the sheet) the rule sits under."""

    index: int
    content: str
    category: str | None = None


def extract_rules(extracted: Extracted, limits: Limits | None = None) -> list[Rule]:
    """The rules of `extracted` in document order, each once, at most `limits.max_rules`."""
    max_rules = (Limits() if limits is None else limits).max_rules
    rules: list[Rule] = []
    seen: set[str] = set()
    for passage in extracted.passages:
        for statement in _statements(passage):
            key = statement.casefold()
            if key in seen or not states_obligation(statement):
                continue
            seen.add(key)
            category = passage.heading or passage.sheet
            rules.append(Rule(index=len(rules), content=statement, category=category))
            if len(rules) == max_rules:
                return rules
    return rules


def _statements(passage: Passage) -> Iterator[str]:
    """The sentences of a passage (of each cell, for a row), list markers stripped."""
    texts = passage.cells if passage.kind == "row" else (passage.text,)
    for text in texts:
        for sentence in split_sentences(without_marker(text)):
            yield without_marker(" ".join(sentence.split()))
