"""SQL of adding annotations: an insert that leaves an existing annotation id alone."""

from __future__ import annotations

from redline.comments.storage.annotations import COLUMNS, AnnotationRow
from redline.pg import Connection

# Column names come from AnnotationRow's fields, never from input.
_INSERT_IF_ABSENT = (
    "INSERT INTO comments.annotation ("  # noqa: S608
    + ", ".join(COLUMNS)
    + ") VALUES ("
    + ", ".join(f"${i}" for i in range(1, len(COLUMNS) + 1))
    + ") ON CONFLICT (api_key, organization_id, annotation_id) DO NOTHING"
)


async def insert_if_absent(conn: Connection, row: AnnotationRow) -> bool:
    """Insert the annotation; False (and nothing written) when its id is taken in the
    organization, also by a transaction that commits meanwhile."""
    status = await conn.execute(_INSERT_IF_ABSENT, *[getattr(row, c) for c in COLUMNS])
    return status.split()[-1] == "1"
