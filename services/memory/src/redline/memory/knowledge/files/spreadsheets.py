"""Spreadsheets into row passages: CSV and XLSX, each table's first non-empty row its header and
each later row one passage rendered "Header: value; ..." with empty cells left out.

A CSV is decoded, its line lengths checked and its dialect sniffed from a sample. An XLSX is read
with openpyxl (read-only, cached values), sheet by sheet, once its zip directory has passed the
zip-bomb checks, which are made before any member is decompressed.
"""

from __future__ import annotations

import csv
import datetime
import io
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NoReturn

import openpyxl

from redline.memory.knowledge.files.limits import FileRejected, Limits
from redline.memory.knowledge.files.passage import Passage
from redline.memory.knowledge.files.text import read_text

# Tables, of either format

Cells = tuple[str, ...]


def table_passages(
    rows: Iterable[Sequence[str]], *, max_rows: int, sheet: str | None = None
) -> list[Passage]:
    """One passage per non-empty row after the header row; `file-too-large` past `max_rows`."""
    table = _filled_rows(rows, max_rows)
    if not table:
        return []
    # A table drawn from B3 leaves column A empty in every row: it is margin, not a column.
    margin = min(_leading_blanks(cells) for cells in table)
    header = _named(table[0][margin:], 0)
    passages = []
    for row in table[1:]:
        cells = row[margin:]
        if len(cells) > len(header):
            header = _named(header, len(cells))
        passages.append(
            Passage(
                kind="row", text=_row_text(header, cells), sheet=sheet, header=header, cells=cells
            )
        )
    return passages


def _too_many_rows(max_rows: int) -> FileRejected:
    return FileRejected(
        "file-too-large", f"the file has over {max_rows} rows; at most that are read"
    )


def _filled_rows(rows: Iterable[Sequence[str]], max_rows: int) -> list[Cells]:
    """The rows holding any text, each cut after its last non-empty cell."""
    filled: list[Cells] = []
    for row in rows:
        cells = tuple(" ".join(cell.split()) for cell in row)
        if any(cells):
            if len(filled) > max_rows:  # the header and max_rows rows are allowed
                raise _too_many_rows(max_rows)
            filled.append(cells[: len(cells) - _leading_blanks(cells[::-1])])
    return filled


def _leading_blanks(cells: Cells) -> int:
    return next((i for i, cell in enumerate(cells) if cell), len(cells))


def _named(header: Sequence[str], width: int) -> Cells:
    """`header` widened to `width` columns, each blank name replaced by its column number."""
    padded = [*header, *[""] * (width - len(header))]
    return tuple(name or f"Column {number}" for number, name in enumerate(padded, start=1))


def _row_text(header: Sequence[str], cells: Sequence[str]) -> str:
    return "; ".join(
        f"{name}: {value}" for name, value in zip(header, cells, strict=False) if value
    )


# CSV

# The sniffer's quote search grows with the square of the sample on hostile input (0.5 s at
# 8 KiB, 3 s at 16 KiB); 8 KiB still holds dozens of rows of an ordinary file.
SNIFF_SAMPLE_CHARS = 8 * 1024
DELIMITERS = ",;\t|"
# UTF-8 spends at most four bytes on a character: a line this short cannot be over the limit.
_MAX_BYTES_PER_CHAR = 4


def csv_passages(data: bytes, limits: Limits) -> list[Passage]:
    text = read_text(data)
    check_line_lengths(text, limits.max_line_bytes)
    reader = csv.reader(io.StringIO(text, newline=""), _dialect(text))
    # The csv module's own field limit (128 KiB) still applies: it stops an unclosed quote from
    # swallowing the rest of the file as one field.
    try:
        return table_passages(reader, max_rows=limits.max_rows)
    except csv.Error as error:
        raise FileRejected("csv-unreadable", f"line {reader.line_num}: {error}") from None


def check_line_lengths(text: str, max_bytes: int) -> None:
    """Raise `line-too-long` if a line of `text` is over `max_bytes` in UTF-8, before any line
    is parsed or copied; only lines long enough to be suspects are encoded to measure them."""
    newline = "\n" if "\n" in text else "\r"
    suspect = max_bytes // _MAX_BYTES_PER_CHAR
    start = 0
    while start <= len(text):
        end = text.find(newline, start)
        if end == -1:
            end = len(text)
        if end - start > suspect and len(text[start:end].encode("utf-8")) > max_bytes:
            number = text.count(newline, 0, start) + 1
            raise FileRejected(
                "line-too-long", f"line {number} is over {max_bytes} bytes; rows must be shorter"
            )
        start = end + 1


def _dialect(text: str) -> type[csv.Dialect]:
    """Excel's dialect with the delimiter and quote character sniffed from a sample.

    The rest of what the sniffer guesses is less reliable than Excel's defaults: it reports
    doubled quotes as unused when the sample has none, or when a quoted field spans lines.
    """
    sample = text[:SNIFF_SAMPLE_CHARS]
    if len(text) > SNIFF_SAMPLE_CHARS and "\n" in sample:
        # A cut line would look like a row with too few fields.
        sample = sample[: sample.rindex("\n")]
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters=DELIMITERS)
    except csv.Error:
        return csv.excel

    class Sniffed(csv.excel):
        delimiter = sniffed.delimiter
        quotechar = sniffed.quotechar or '"'

    return Sniffed


# XLSX

# Excel's own row limit, counted over all sheets and empty rows included: a sheet's XML may
# number its rows as it likes, and openpyxl yields an empty row for every number skipped.
MAX_SCANNED_ROWS = 1_048_576


def xlsx_passages(data: bytes, limits: Limits) -> list[Passage]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            check_archive(archive, limits)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as error:
        raise _unreadable(error) from None
    # openpyxl fails on malformed parts with whatever its parser met (KeyError, TypeError,
    # ParseError...); to a user each means the workbook cannot be read.
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:
        raise _unreadable(error) from None
    try:
        return _read_sheets(workbook, limits)
    except FileRejected:
        raise
    except Exception as error:
        raise _unreadable(error) from None
    finally:
        workbook.close()


def _read_sheets(workbook: Any, limits: Limits) -> list[Passage]:
    passages: list[Passage] = []
    scanned = _ScannedRows()
    for sheet in workbook.worksheets:
        # Trust the rows present, not the declared dimension: a bogus "A1:XFD1048576" would
        # otherwise pad every row to 16,384 cells and add a million empty rows.
        sheet.reset_dimensions()
        rows = scanned.counted(sheet.iter_rows(values_only=True))
        room = limits.max_rows - len(passages)
        passages.extend(table_passages(rows, max_rows=room, sheet=sheet.title))
    return passages


class _ScannedRows:
    def __init__(self) -> None:
        self.count = 0

    def counted(self, rows: Iterable[tuple[object, ...]]) -> Iterator[list[str]]:
        for row in rows:
            self.count += 1
            if self.count > MAX_SCANNED_ROWS:
                raise FileRejected(
                    "file-too-large",
                    f"the workbook has over {MAX_SCANNED_ROWS} rows, empty ones included",
                )
            yield [cell_text(value) for value in row]


def cell_text(value: object) -> str:
    """A cell's value as a person reads it in Excel."""
    match value:
        case None:
            return ""
        case bool():
            return "TRUE" if value else "FALSE"
        case float() if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        case float():
            # Fifteen digits are what Excel shows; more only adds binary noise (0.1 + 0.2).
            return f"{value:.15g}"
        case datetime.datetime() if value.time() == datetime.time():
            return value.date().isoformat()
        case datetime.datetime():
            return value.isoformat(sep=" ")
        case datetime.date() | datetime.time():
            return value.isoformat()
        case _:
            return str(value)


def _unreadable(error: Exception) -> FileRejected:
    return FileRejected("xlsx-unreadable", f"the workbook cannot be read: {error}")


# Zip-bomb checks on an XLSX's central directory

MAX_MEMBERS = 10_000
MAX_RATIO = 100
# Below this a member is too small to hurt, whatever its ratio (XML compresses 20:1 and more).
RATIO_FLOOR_BYTES = 10 << 20


def check_archive(archive: zipfile.ZipFile, limits: Limits) -> None:
    """Raise `archive-too-large` if the directory declares more than we would inflate.

    The declared sizes bound the work: zipfile stops inflating a member at its declared size.
    """
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        _archive_too_large(
            f"the archive has {len(members)} members; at most {MAX_MEMBERS} are read"
        )
    total = sum(member.file_size for member in members)
    if total > limits.max_uncompressed_bytes:
        _archive_too_large(
            f"the archive inflates to {total} bytes; at most "
            f"{limits.max_uncompressed_bytes} are read"
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > RATIO_FLOOR_BYTES and ratio > MAX_RATIO:
            _archive_too_large(
                f"member {member.filename!r} inflates {ratio:.0f} times to {member.file_size} bytes"
            )


def _archive_too_large(detail: str) -> NoReturn:
    raise FileRejected("archive-too-large", detail)
