"""Table rows into passages, shared by CSV and XLSX: the first non-empty row is the header, each
later row one passage rendered "Header: value; ..." with empty cells left out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from redline.memory.knowledge.files.passage import Passage
from redline.memory.knowledge.files.rejection import FileRejected

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


def too_many_rows(max_rows: int) -> FileRejected:
    return FileRejected(
        "file-too-large", f"the file has over {max_rows} rows; at most that are read"
    )


def header_line(header: Sequence[str]) -> str:
    """The line that introduces a table's rows in a chunk."""
    return "Columns: " + " | ".join(header)


def _filled_rows(rows: Iterable[Sequence[str]], max_rows: int) -> list[Cells]:
    """The rows holding any text, each cut after its last non-empty cell."""
    filled: list[Cells] = []
    for row in rows:
        cells = tuple(" ".join(cell.split()) for cell in row)
        if any(cells):
            if len(filled) > max_rows:  # the header and max_rows rows are allowed
                raise too_many_rows(max_rows)
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
