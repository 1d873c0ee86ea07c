"""Plain text into passages: paragraphs split on blank lines, list items on their markers,
headings carried down to the passages under them (across pages, for a PDF)."""

from __future__ import annotations

import re
from itertools import pairwise

from redline.memory.knowledge.files.heading import heading_of
from redline.memory.knowledge.files.list_item import LIST_ITEM
from redline.memory.knowledge.files.passage import Passage

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")
# A line ending in a hyphen after a letter was wrapped mid-word (or mid-compound).
_WRAPPED_WORD = re.compile(r"[^\W\d_]-$")


def text_passages(text: str) -> list[Passage]:
    """The passages of a plain text file."""
    reader = TextReader()
    reader.read(text)
    return reader.finish()


class TextReader:
    """Reads one text after another (a PDF's pages) into passages.

    A heading applies to what follows it until the next heading, on later pages too.
    """

    def __init__(self) -> None:
        self.passages: list[Passage] = []
        self._page: int | None = None
        self._heading: str | None = None
        self._paragraph: list[str] = []
        # A heading nothing has followed yet, with its page: a title above a section's heading
        # is kept as text when the next heading comes, so no words go missing.
        self._bare_heading: tuple[str, int | None] | None = None

    def read(self, text: str, *, page: int | None = None) -> None:
        self._page = page
        for block in _BLANK_LINE.split(text.replace("\r\n", "\n").replace("\r", "\n")):
            for line in block.split("\n"):
                self._add(" ".join(line.split()))
            self._end_paragraph()

    def finish(self) -> list[Passage]:
        self._keep_bare_heading()
        return self.passages

    def _add(self, line: str) -> None:
        if not line:
            return
        title = heading_of(line)
        if title is not None:
            self._end_paragraph()
            self._keep_bare_heading()
            self._heading = title
            self._bare_heading = (title, self._page)
            return
        item = LIST_ITEM.match(line)
        if item is not None:
            self._end_paragraph()
            marker = "-" if item.group("bullet") else item.group("number")
            line = f"{marker} {item.group('body')}"
        self._paragraph.append(line)
        self._bare_heading = None

    def _end_paragraph(self) -> None:
        if self._paragraph:
            self._append(_joined(self._paragraph), self._page, self._heading)
            self._paragraph = []

    def _keep_bare_heading(self) -> None:
        if self._bare_heading is not None:
            title, page = self._bare_heading
            above = self.passages[-1].heading if self.passages else None
            self._append(title, page, above)
            self._bare_heading = None

    def _append(self, text: str, page: int | None, heading: str | None) -> None:
        self.passages.append(Passage(kind="text", text=text, page=page, heading=heading))


def _joined(lines: list[str]) -> str:
    parts = [lines[0]]
    for previous, line in pairwise(lines):
        if not _WRAPPED_WORD.search(previous):
            parts.append(" ")
        parts.append(line)
    return "".join(parts)
