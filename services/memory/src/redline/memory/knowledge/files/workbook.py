"""XLSX into row passages with openpyxl (read-only, cached values), sheet by sheet, after the
archive's directory has passed the zip-bomb checks."""

from __future__ import annotations

import datetime
import io
import zipfile
from collections.abc import Iterable, Iterator
from typing import Any

import openpyxl

from redline.memory.knowledge.files.archive import check_archive
from redline.memory.knowledge.files.limits import Limits
from redline.memory.knowledge.files.passage import Passage
from redline.memory.knowledge.files.rejection import FileRejected
from redline.memory.knowledge.files.tables import table_passages

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
