"""What extraction yields: passages in document order, each a unit chunking never cuts through."""

from __future__ import annotations

from typing import Literal

import msgspec

PassageKind = Literal["text", "row"]


class Passage(msgspec.Struct, frozen=True, kw_only=True):
    """A paragraph, list item or table row, with where it sits in its document.

    `page` is 1-based (PDF only); `sheet` names the workbook sheet (XLSX only); `heading` is the
    nearest heading above. A row keeps its table's `header` and its own `cells` beside the
    rendered `text` ("Header: value; ...") so chunks can repeat the header and Markdown can draw
    the table.
    """

    kind: PassageKind
    text: str
    page: int | None = None
    sheet: str | None = None
    heading: str | None = None
    header: tuple[str, ...] = ()
    cells: tuple[str, ...] = ()


class Extracted(msgspec.Struct, frozen=True):
    """A file's passages in document order (`markdown.render_markdown` draws them as the
    Markdown offered for download)."""

    passages: list[Passage]
