"""Sentences: where one ends, and whether it obliges or forbids.

A sentence ends after a full stop, question or exclamation mark followed by a capital, except
after common abbreviations and initials. One that holds a word of obligation or prohibition is
what makes a rule (see `rules`), and what makes a numbered line a step rather than a section's
heading (see `text`).
"""

from __future__ import annotations

import re

# Matched only from the first mark of a run (the lookbehind): trying again from inside a long
# run of dots would make a line of them take quadratic time.
_BOUNDARY = re.compile(
    r"(?<![.!?\u2026])[.!?\u2026]++[\"'\u201d\u2019)\]]*+(?P<space>\s+)"
    r"(?=[\"'\u201c\u2018(\[]?[^\W\d_a-z]|\d)"
)
_ABBREVIATIONS = frozenset(
    {
        "e.g.", "i.e.", "etc.", "vs.", "cf.", "al.", "approx.", "incl.", "excl.", "esp.", "viz.",
        "mr.", "mrs.", "ms.", "dr.", "prof.", "st.", "jr.", "sr.", "inc.", "ltd.", "co.", "corp.",
        "no.", "nos.", "fig.", "p.", "pp.", "para.", "sec.", "art.", "ch.", "vol.", "ref.",
        "tel.", "dept.", "jan.", "feb.", "mar.", "apr.", "jun.", "jul.", "aug.", "sep.", "sept.",
        "oct.", "nov.", "dec.",
    }
)  # fmt: skip
# "J. Smith", "U.S. customers": a boundary never follows a lone letter or dotted initials.
_INITIALS = re.compile(r"(?:[^\W\d_]\.)+")
# Only the end of a sentence is looked at, never all of it: a text full of abbreviations would
# otherwise be scanned again at each one.
_TAIL_CHARS = 24
# The words that make a statement oblige or forbid.
_OBLIGATION = re.compile(
    r"\b(?:must|never|always|should|shall|required|needs?\s+to|may\s+not|do\s+not"
    r"|don['\u2019]t|(?:is|are)\s+prohibited)\b",
    re.IGNORECASE,
)


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, whitespace at their edges removed; none is empty."""
    sentences: list[str] = []
    start = 0
    for boundary in _BOUNDARY.finditer(text):
        end = boundary.start("space")
        if _ends_with_abbreviation(text[max(start, end - _TAIL_CHARS) : end]):
            continue
        sentences.append(text[start:end].strip())
        start = boundary.end()
    sentences.append(text[start:].strip())
    return [sentence for sentence in sentences if sentence]


def _ends_with_abbreviation(tail: str) -> bool:
    words = tail.split()
    if not words:
        return False
    last_word = words[-1].lstrip("(\"'\u201c\u2018").lower()
    return last_word in _ABBREVIATIONS or _INITIALS.fullmatch(last_word) is not None


def states_obligation(text: str) -> bool:
    """True if `text` holds a word of obligation or prohibition ("must", "never", "may not")."""
    return _OBLIGATION.search(text) is not None
