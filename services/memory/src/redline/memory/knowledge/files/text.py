"""Plain text into passages: bytes decoded, paragraphs split on blank lines, list items on their
markers, and headings carried down to the passages under them (across pages, for a PDF).

Decoding needs no detection library: byte-order marks, then UTF-8, then a single-byte Western
fallback for files that look like text. Headings are short, unpunctuated lines in Title Case or
capitals, numbered section titles, and Markdown `#` lines; list items open with a bullet or an
item number.
"""

from __future__ import annotations

import codecs
import re
from itertools import pairwise

from redline.memory.knowledge.files.limits import FileRejected
from redline.memory.knowledge.files.passage import Passage
from redline.memory.knowledge.files.sentences import states_obligation

# The marks that open a bulleted list item; a line opening with one is never a heading.
_BULLET_MARK = r"[-*\u2022\u2023\u25e6\u25aa\u2013]"

# Decoding

# Control characters that never occur in text: C0 except tab, line feed, form feed and carriage
# return, DEL, and the C1 range a Latin-1 decode produces from binary bytes.
_BINARY_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")

# A legacy file may hold a stray control character or two; binary data holds many.
_LEGACY_CONTROL_SHARE = 0.001

# Longest BOMs first: the UTF-32 LE mark begins with the UTF-16 LE mark.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_text(data: bytes) -> str:
    """`data` as text: by its BOM (UTF-8, UTF-16, UTF-32), else as UTF-8, else as a legacy
    single-byte file if it looks like text; `text-not-decodable` otherwise."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decoded(data[len(bom) :], encoding)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    text = _legacy_decoded(data)
    if _has_many_controls(text):
        raise FileRejected(
            "text-not-decodable",
            "the file is neither UTF-8 nor UTF-16/32 with a byte-order mark, "
            "and too many of its bytes are control characters for Latin-1 text",
        )
    return text


def read_text(data: bytes) -> str:
    """`data` decoded as text that holds no binary control characters (NUL and the like)."""
    text = decode_text(data)
    found = _BINARY_CONTROL.search(text)
    if found is not None:
        raise FileRejected(
            "unsupported-mime-detected-post-validation",
            f"the file declared as text holds a binary control character "
            f"(U+{ord(found.group()):04X}) at character {found.start()}",
        )
    return text


def _decoded(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise FileRejected(
            "text-not-decodable",
            f"the file starts with a {encoding} byte-order mark but is not valid {encoding} "
            f"at byte {error.start}",
        ) from None


def _has_many_controls(text: str) -> bool:
    allowed = len(text) * _LEGACY_CONTROL_SHARE
    # Stops at the first control over the allowance: binary data gets there within a few KB.
    found = enumerate(_BINARY_CONTROL.finditer(text), start=1)
    return any(count > allowed for count, _ in found)


def _legacy_decoded(data: bytes) -> str:
    # Files called Latin-1 are nearly always Windows-1252: its curly quotes and dashes sit where
    # Latin-1 has C1 control codes. Five bytes are undefined in 1252; then Latin-1 it is.
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# Paragraphs

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


# Headings

MAX_HEADING_CHARS = 80
MAX_HEADING_WORDS = 12

_MARKDOWN = re.compile(r"^#{1,6}\s+(?P<title>.+?)(?:\s+#+)?\s*$")
# "3. Refunds", "3.1 Scope", "IV. Escalation"; the title must start with a capital.
_NUMBERED = re.compile(r"^(?P<number>\d+(?:\.\d+)*\.?|[IVXLC]+\.)\s+(?P<title>[A-Z].*)$")
_BULLET = re.compile(rf"^{_BULLET_MARK}\s")
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


# List items

LIST_ITEM = re.compile(
    rf"^(?:(?P<bullet>{_BULLET_MARK})|(?P<number>\d{{1,3}}[.)]|[a-z][.)]))\s+(?P<body>\S.*)$"
)


def is_list_item(text: str) -> bool:
    return LIST_ITEM.match(text) is not None


def without_marker(text: str) -> str:
    """`text` without its bullet or item number, if it has one."""
    item = LIST_ITEM.match(text)
    return item.group("body") if item is not None else text
