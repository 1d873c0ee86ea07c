"""The canonical Markdown rendering of extracted passages: headings as `#`, tables as pipe
tables under their header, pages and sheets marked where they change."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import groupby

from redline.memory.knowledge.files.passage import Passage
from redline.memory.knowledge.files.text import is_list_item


def render_markdown(passages: Sequence[Passage]) -> str:
    blocks: list[str] = []
    page: int | None = None
    sheet: str | None = None
    heading: str | None = None
    for _, run in groupby(passages, key=_block_key):
        group = list(run)
        first = group[0]
        if first.page is not None and first.page != page:
            if page is not None:
                blocks.append("---")
            blocks.append(f"<!-- page {first.page} -->")
            page = first.page
        if first.sheet is not None and first.sheet != sheet:
            blocks.append(f"# {first.sheet}")
            sheet = first.sheet
        if first.heading is not None and first.heading != heading:
            blocks.append(f"# {first.heading}")
        heading = first.heading
        if first.kind == "row":
            blocks.append(_pipe_table(group))
        elif is_list_item(first.text):
            blocks.append("\n".join(passage.text for passage in group))
        else:
            blocks.extend(passage.text for passage in group)
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _block_key(passage: Passage) -> object:
    """Rows of one table share a key, and so do the items of one list; every other passage
    gets its own."""
    if passage.kind == "row":
        return ("row", passage.sheet, passage.header, passage.heading)
    if is_list_item(passage.text):
        return ("list", passage.page, passage.heading)
    return id(passage)


def _pipe_table(rows: list[Passage]) -> str:
    header = rows[0].header
    width = max(len(header), *(len(row.cells) for row in rows))
    names = [*header, *(f"Column {n}" for n in range(len(header) + 1, width + 1))]
    lines = [_pipe_line(names), _pipe_line(["---"] * width)]
    lines.extend(_pipe_line([*row.cells, *[""] * (width - len(row.cells))]) for row in rows)
    return "\n".join(lines)


def _pipe_line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_escaped(cells)) + " |"


def _escaped(cells: Sequence[str]) -> Iterator[str]:
    for cell in cells:
        yield " ".join(cell.split()).replace("|", "\\|")
