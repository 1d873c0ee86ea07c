"""A customer file's bytes into passages, by its declared mime type."""

from __future__ import annotations

from redline.memory.knowledge.files.charset import read_text
from redline.memory.knowledge.files.delimited import csv_passages
from redline.memory.knowledge.files.limits import Limits
from redline.memory.knowledge.files.passage import Extracted, Passage
from redline.memory.knowledge.files.pdf import pdf_passages
from redline.memory.knowledge.files.rejection import FileRejected
from redline.memory.knowledge.files.sniff import CSV, PDF, TEXT, XLSX, unsupported
from redline.memory.knowledge.files.text import text_passages
from redline.memory.knowledge.files.workbook import xlsx_passages


def extract(data: bytes, mime_type: str, limits: Limits) -> Extracted:
    """The passages of a file in document order; `FileRejected` if the file cannot be read,
    breaks a limit, or holds no text."""
    passages = _passages(data, mime_type, limits)
    if not passages:
        raise FileRejected("no-text-found", f"no text could be extracted from the {mime_type} file")
    return Extracted(passages)


def _passages(data: bytes, mime_type: str, limits: Limits) -> list[Passage]:
    if mime_type == PDF:
        return pdf_passages(data, limits)
    if mime_type == XLSX:
        return xlsx_passages(data, limits)
    if mime_type == CSV:
        return csv_passages(data, limits)
    if mime_type == TEXT:
        return text_passages(read_text(data))
    raise unsupported(mime_type)
