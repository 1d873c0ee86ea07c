"""Pages bounded by bytes as well as by rows.

A list endpoint asks for up to `pageSize` rows, but rows may be large (an annotation or a
notification of up to about a MiB), so a page of a thousand rows could be a gigabyte. The rule,
here once for every list: a page takes rows in the listing's order while their bytes together
stay within the budget, and always takes the first, so every page makes progress. The page ends
early, and its next-page token points after its last row, so the client continues exactly where
the page stopped.

The cut happens in PostgreSQL: only the rows of the page leave the database, and each row is
measured as what the page will carry (the JSON text of its body, say).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# Columns the wrapped statement adds to each row it returns.
ROWS_READ = "page_rows_read"


def within_byte_budget(
    page: str, *, order: str, row_bytes: str, page_size: str, budget: str
) -> str:
    """`page` (a statement in the listing's `order`, limited to one row more than the page holds)
    cut to the page: at most `page_size` rows, and past the first only while the running sum of
    `row_bytes` stays within `budget`.

    `order` and `row_bytes` name the statement's output columns (`q.` is its alias); `page_size`
    and `budget` are parameter placeholders. Each returned row also carries `page_rows_read`,
    the rows the statement read, which `has_more` compares with the page."""
    return (
        "SELECT w.* FROM ("
        f"SELECT q.*, count(*) OVER () AS {ROWS_READ},"
        " row_number() OVER running AS page_rank,"
        f" sum({row_bytes}) OVER running AS page_bytes"
        f" FROM ({page}) q WINDOW running AS (ORDER BY {order} ROWS UNBOUNDED PRECEDING)"
        f") w WHERE w.page_rank <= {page_size}"
        f" AND (w.page_rank = 1 OR w.page_bytes <= {budget})"
        f" ORDER BY w.page_rank"
    )


def has_more(rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether rows follow the page `within_byte_budget` returned."""
    return bool(rows) and int(rows[0][ROWS_READ]) > len(rows)
