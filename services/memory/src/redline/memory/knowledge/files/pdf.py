"""PDF into passages with pypdf: text page by page, page numbers kept."""

from __future__ import annotations

import io
import re

from pypdf import PdfReader

from redline.memory.knowledge.files.limits import FileRejected, Limits
from redline.memory.knowledge.files.passage import Passage
from redline.memory.knowledge.files.text import TextReader

# A running page number ("7", "Page 7", "7 / 12", "Page 7 of 12") as a page's first or last
# line is furniture, not content; elsewhere a bare number may be a table's cell.
_PAGE_NUMBER = re.compile(r"(?:page\s+)?\d{1,5}(?:\s*(?:/|of)\s*\d{1,5})?", re.IGNORECASE)


def pdf_passages(data: bytes, limits: Limits) -> list[Passage]:
    reader = _opened(data)
    if reader.is_encrypted:
        raise FileRejected(
            "pdf-encrypted", "the PDF is encrypted; upload a copy saved without a password"
        )
    page_count = _page_count(reader)
    if page_count > limits.max_pages:
        raise FileRejected(
            "file-too-large", f"the PDF has {page_count} pages; at most {limits.max_pages} are read"
        )
    text_reader = TextReader()
    for number in range(1, page_count + 1):
        text_reader.read(_page_text(reader, number), page=number)
    return text_reader.finish()


# pypdf signals malformed input with whatever the parser tripped on (KeyError, ValueError,
# zlib.error, RecursionError...), not only PdfReadError; any of them means the same to a user.
def _opened(data: bytes) -> PdfReader:
    try:
        return PdfReader(io.BytesIO(data))
    except Exception as error:
        raise _unreadable(error) from None


def _page_count(reader: PdfReader) -> int:
    try:
        return len(reader.pages)
    except Exception as error:
        raise _unreadable(error) from None


def _page_text(reader: PdfReader, number: int) -> str:
    try:
        text = reader.pages[number - 1].extract_text()
    except Exception as error:
        raise _unreadable(error, f" on page {number}") from None
    return _without_page_number(text)


def _without_page_number(text: str) -> str:
    lines = text.strip().split("\n")
    for end in (-1, 0):
        if lines and _PAGE_NUMBER.fullmatch(lines[end].strip()):
            del lines[end]
    return "\n".join(lines)


def _unreadable(error: Exception, where: str = "") -> FileRejected:
    return FileRejected("pdf-unreadable", f"the PDF cannot be read{where}: {error}")
