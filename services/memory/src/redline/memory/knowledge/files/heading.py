"""Which lines are headings: short, unpunctuated lines in Title Case or capitals, numbered
section titles, and Markdown `#` lines."""

from __future__ import annotations

import re

from redline.memory.knowledge.files.obligation import states_obligation

MAX_HEADING_CHARS = 80
MAX_HEADING_WORDS = 12

_MARKDOWN = re.compile(r"^#{1,6}\s+(?P<title>.+?)(?:\s+#+)?\s*$")
# "3. Refunds", "3.1 Scope", "IV. Escalation"; the title must start with a capital.
_NUMBERED = re.compile(r"^(?P<number>\d+(?:\.\d+)*\.?|[IVXLC]+\.)\s+(?P<title>[A-Z].*)$")
_BULLET = re.compile(r"^[-*\u2022\u2023\u25e6\u25aa\u2013]\s")
_WORD = re.compile(r"[^\W\d_][\w'\u2019&-]*")
_SENTENCE_END = (".", ",", ";", "!")
# Words Title Case leaves in lower case.
_MINOR_WORDS = frozenset(
    {
        "a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "nor", "of",
        "on", "or", "per", "the", "to", "vs", "via", "with",
    }
)  # fmt: skip


def heading_of(line: str) -> str | None:
    """The heading's title if `line` looks like a heading, else None."""
    line = line.strip()
    markdown = _MARKDOWN.match(line)
    if markdown is not None:
        return markdown.group("title")
    if not _is_short(line) or _BULLET.match(line) or line.endswith(_SENTENCE_END):
        return None
    numbered = _NUMBERED.match(line)
    if numbered is not None:
        number, title = numbered.group("number", "title")
        return line if _is_numbered_title(number, title) else None
    return line if _is_title_case(line) or _is_all_caps(line) else None


def _is_short(line: str) -> bool:
    return 0 < len(line) <= MAX_HEADING_CHARS and len(line.split()) <= MAX_HEADING_WORDS


def _is_numbered_title(number: str, title: str) -> bool:
    # "1. Open the ticket" is a step of a procedure, "3.1 Scope of the policy" a section: a
    # single-level number needs a Title Case title; a multi-level one may be in sentence case.
    if _is_title_case(title) or _is_all_caps(title):
        return True
    return number.rstrip(".").count(".") > 0 and not states_obligation(title)


def _is_title_case(text: str) -> bool:
    words = _WORD.findall(text)
    major = [word for word in words if word.lower() not in _MINOR_WORDS]
    return bool(major) and all(word[0].isupper() for word in major)


def _is_all_caps(text: str) -> bool:
    letters = [char for char in text if char.isalpha()]
    return len(letters) >= 2 and all(char.isupper() for char in letters)
