"""SQL of the changing endpoints: the annotations of a document a filter selects, locked for the
change, and deleting annotations with what hangs off them."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.comments.storage.annotations import COLUMNS, AnnotationRow
from redline.pg import Connection


class Selection(msgspec.Struct, kw_only=True):
    """Which annotations of one document a bulk change applies to; None: no condition."""

    annotation_ids: list[str] | None = None
    location_ids: list[str] | None = None
    creator_ids: list[str] | None = None
    agent_id: str | None = None
    fresh_agent_suggestions: bool = False


def _row(record: Any) -> AnnotationRow:
    return AnnotationRow(**{column: record[column] for column in COLUMNS})


async def select_for_update(
    conn: Connection, api_key: str, organization_id: str, document_id: str, which: Selection
) -> list[AnnotationRow]:
    """Lock and return the document's annotations `which` selects, oldest first."""
    records = await conn.fetch(
        "SELECT * FROM comments.annotation"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = $3"
        " AND ($4::text[] IS NULL OR annotation_id = ANY($4))"
        " AND ($5::text[] IS NULL OR location_id = ANY($5))"
        " AND ($6::text[] IS NULL OR creator_user_id = ANY($6))"
        " AND ($7::text IS NULL OR agent_id = $7)"
        " AND (NOT $8 OR (source_type = 'agent' AND type = 'suggestion'"
        " AND suggestion_status = 'pending'))"
        " ORDER BY annotation_number, annotation_id FOR UPDATE",
        api_key,
        organization_id,
        document_id,
        which.annotation_ids,
        which.location_ids,
        which.creator_ids,
        which.agent_id,
        which.fresh_agent_suggestions,
    )
    return [_row(record) for record in records]


async def get_in_document_for_update(
    conn: Connection, api_key: str, organization_id: str, document_id: str, annotation_id: str
) -> AnnotationRow | None:
    record = await conn.fetchrow(
        "SELECT * FROM comments.annotation WHERE api_key = $1 AND organization_id = $2"
        " AND document_id = $3 AND annotation_id = $4 FOR UPDATE",
        api_key,
        organization_id,
        document_id,
        annotation_id,
    )
    return None if record is None else _row(record)


async def delete(
    conn: Connection, api_key: str, organization_id: str, annotation_ids: list[str]
) -> None:
    """Delete annotations and who-viewed-them records."""
    await conn.execute(
        "DELETE FROM comments.annotation_view"
        " WHERE api_key = $1 AND organization_id = $2 AND annotation_id = ANY($3)",
        api_key,
        organization_id,
        annotation_ids,
    )
    await conn.execute(
        "DELETE FROM comments.annotation"
        " WHERE api_key = $1 AND organization_id = $2 AND annotation_id = ANY($3)",
        api_key,
        organization_id,
        annotation_ids,
    )
