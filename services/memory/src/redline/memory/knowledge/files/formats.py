"""The file formats knowledge takes, by declared mime type: on upload, whether a file's bytes
are what its type says, judged from the bytes alone (`sniff`); on ingest, its reading into
passages by the reader of its format (`extract`: `pdf`, `spreadsheets`, `text`)."""

from __future__ import annotations

import io
import zipfile

from redline.memory.knowledge.files.limits import FileRejected, Limits
from redline.memory.knowledge.files.passage import Extracted, Passage
from redline.memory.knowledge.files.pdf import pdf_passages
from redline.memory.knowledge.files.spreadsheets import csv_passages, xlsx_passages
from redline.memory.knowledge.files.text import read_text, text_passages

PDF = "application/pdf"
CSV = "text/csv"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
TEXT = "text/plain"
MIME_TYPES = (PDF, CSV, XLSX, TEXT)

MISMATCH = "unsupported-mime-detected-post-validation"

# PDF readers accept a header anywhere in the first kilobyte (printer and mail junk before it).
_PDF_HEADER = b"%PDF-"
_PDF_HEADER_WINDOW = 1024 + len(_PDF_HEADER)
_ZIP_HEADER = b"PK\x03\x04"
_XLSX_PARTS = ("[Content_Types].xml", "xl/workbook.xml")

# Formats that may pass a text check by luck (short or mostly ASCII) but are never text.
_BINARY_SIGNATURES = {
    _PDF_HEADER: "a PDF",
    _ZIP_HEADER: "a zip archive (such as XLSX or DOCX)",
    b"\x89PNG\r\n\x1a\n": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF87a": "a GIF image",
    b"GIF89a": "a GIF image",
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1": "a legacy Office document",
    b"\x1f\x8b": "a gzip archive",
}


def sniff(data: bytes, mime_type: str) -> None:
    """Raise `FileRejected` unless `data` looks like `mime_type`."""
    if mime_type == PDF:
        _sniff_pdf(data)
    elif mime_type == XLSX:
        _sniff_xlsx(data)
    elif mime_type in (CSV, TEXT):
        _sniff_text(data, mime_type)
    else:
        raise _unsupported(mime_type)


def _unsupported(mime_type: str) -> FileRejected:
    return FileRejected(
        "unsupported-mime-type",
        f"{mime_type!r} is not one of the supported types: {', '.join(MIME_TYPES)}",
    )


def _sniff_pdf(data: bytes) -> None:
    if _PDF_HEADER not in data[:_PDF_HEADER_WINDOW]:
        raise FileRejected(MISMATCH, "the file is declared as PDF but has no %PDF- header")


def _sniff_xlsx(data: bytes) -> None:
    if not data.startswith(_ZIP_HEADER):
        raise FileRejected(MISMATCH, "the file is declared as XLSX but is not a zip archive")
    try:
        # Opening reads only the central directory; no member is decompressed.
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as error:
        raise FileRejected(
            MISMATCH, f"the file is declared as XLSX but its zip directory is unreadable: {error}"
        ) from None
    missing = [part for part in _XLSX_PARTS if part not in names]
    if missing:
        raise FileRejected(
            MISMATCH,
            f"the file is declared as XLSX but is a zip archive without {', '.join(missing)}",
        )


def _sniff_text(data: bytes, mime_type: str) -> None:
    for signature, kind in _BINARY_SIGNATURES.items():
        if data.startswith(signature):
            raise FileRejected(MISMATCH, f"the file is declared as {mime_type} but is {kind}")
    read_text(data)


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
    raise _unsupported(mime_type)
