"""The core SQL of annotations, which every feature uses: one row per annotation, its whole body as
jsonb beside the columns filters use; inserting, locking (the annotations of a document a change
selects), saving and deleting them, numbering them per document, and the document data as
document migration and directory deletes see it. Every statement is scoped by API key and
organization."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from redline.pg import Connection
from redline.pg.documents import move_document_rows, table_holds_document
from redline.proto.annotation import Annotation

SCHEMA = "comments"


class AnnotationRow(msgspec.Struct, kw_only=True):
    """An annotation as stored: `body` is exactly what the get endpoint returns for it (its
    JSON is the jsonb column's)."""

    api_key: str
    organization_id: str
    document_id: str
    annotation_id: str
    annotation_number: int
    type: str
    source_type: str
    suggestion_status: str | None = None
    status_id: str | None = None
    status_type: str | None = None
    location_id: str | None = None
    creator_user_id: str | None = None
    assigned_user_id: str | None = None
    resolved_by: str | None = None
    visibility: str = "public"
    visible_to: list[str] = msgspec.field(default_factory=list)
    mentioned_user_ids: list[str] = msgspec.field(default_factory=list)
    commenter_user_ids: list[str] = msgspec.field(default_factory=list)
    agent_id: str | None = None
    agent_type: str | None = None
    agent_source: str | None = None
    execution_id: str | None = None
    created_at: int
    last_updated: int
    body: Annotation


COLUMNS = tuple(AnnotationRow.__struct_fields__)

# Column names come from AnnotationRow's fields, never from input.
_INSERT = (
    "INSERT INTO comments.annotation ("  # noqa: S608
    + ", ".join(COLUMNS)
    + ") VALUES ("
    + ", ".join(f"${i}" for i in range(1, len(COLUMNS) + 1))
    + ")"
)
_INSERT_IF_ABSENT = _INSERT + " ON CONFLICT (api_key, organization_id, annotation_id) DO NOTHING"

_KEY = ("api_key", "organization_id", "annotation_id")

# Parameters are numbered by COLUMNS: api_key $1, organization_id $2, annotation_id $4.
_UPDATE = (
    "UPDATE comments.annotation SET "  # noqa: S608
    + ", ".join(f"{c} = ${i}" for i, c in enumerate(COLUMNS, 1) if c not in _KEY)
    + " WHERE api_key = $1 AND organization_id = $2 AND annotation_id = $4"
)


def _values(row: AnnotationRow) -> list[Any]:
    return [getattr(row, column) for column in COLUMNS]


async def next_numbers(
    conn: Connection, api_key: str, organization_id: str, document_id: str, count: int
) -> int:
    """Reserve `count` annotation numbers of the document; returns the first."""
    first: int = await conn.fetchval(
        "INSERT INTO comments.document_counter AS c (api_key, organization_id, document_id,"
        " next_number) VALUES ($1, $2, $3, $4 + 1)"
        " ON CONFLICT (api_key, organization_id, document_id)"
        " DO UPDATE SET next_number = c.next_number + $4"
        " RETURNING next_number - $4",
        api_key,
        organization_id,
        document_id,
        count,
    )
    return first


async def insert_if_absent(conn: Connection, row: AnnotationRow) -> bool:
    """Insert the annotation; False (and nothing written) when its id is taken in the
    organization, also by a transaction that commits meanwhile."""
    status = await conn.execute(_INSERT_IF_ABSENT, *_values(row))
    return status.split()[-1] == "1"


async def save(conn: Connection, row: AnnotationRow) -> None:
    """Write back every column of an annotation read with `select_for_update`."""
    await conn.execute(_UPDATE, *_values(row))


def row_columns(alias: str = "") -> str:
    """The select list `row_of` reads, of the table named `alias` (none by default): the body
    as its JSON text, which decodes straight into the Struct."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(
        f"{prefix}body::text AS body" if column == "body" else prefix + column for column in COLUMNS
    )


_BODY = msgspec.json.Decoder(Annotation)


def row_of(record: Any) -> AnnotationRow:
    """An annotation read with `row_columns()`."""
    columns = {column: record[column] for column in COLUMNS}
    columns["body"] = _BODY.decode(columns["body"])
    return AnnotationRow(**columns)


class Selection(msgspec.Struct, kw_only=True):
    """Which annotations of one document a bulk change applies to; None: no condition."""

    annotation_ids: list[str] | None = None
    location_ids: list[str] | None = None
    creator_ids: list[str] | None = None
    agent_id: str | None = None
    fresh_agent_suggestions: bool = False
    agent_pages: list[str] | None = None  # page URLs without their fragment


async def select_for_update(
    conn: Connection, api_key: str, organization_id: str, document_id: str, which: Selection
) -> list[AnnotationRow]:
    """Lock and return the document's annotations `which` selects, oldest first."""
    records = await conn.fetch(
        f"SELECT {row_columns()} FROM comments.annotation"  # noqa: S608 (the table's columns)
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = $3"
        " AND ($4::text[] IS NULL OR annotation_id = ANY($4))"
        " AND ($5::text[] IS NULL OR location_id = ANY($5))"
        " AND ($6::text[] IS NULL OR creator_user_id = ANY($6))"
        " AND ($7::text IS NULL OR agent_id = $7)"
        " AND (NOT $8 OR (source_type = 'agent' AND type = 'suggestion'"
        " AND suggestion_status = 'pending'))"
        " AND ($9::text[] IS NULL OR split_part(body->'agent'->>'url', '#', 1) = ANY($9))"
        " ORDER BY annotation_number, annotation_id FOR UPDATE",
        api_key,
        organization_id,
        document_id,
        which.annotation_ids,
        which.location_ids,
        which.creator_ids,
        which.agent_id,
        which.fresh_agent_suggestions,
        which.agent_pages,
    )
    return [row_of(record) for record in records]


async def delete_annotations(
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


# document migration -------------------------------------------------------------------------


async def delete_documents(
    conn: Connection,
    api_key: str,
    organization_id: str,
    document_ids: Sequence[str] | None,
    created_by_ms: int,
) -> int:
    """Delete the annotations of `document_ids` (of the whole organization when None) created by
    `created_by_ms`, and who viewed them; returns how many annotations went."""
    deleted = await conn.fetchval(
        """
        WITH gone AS (
            DELETE FROM comments.annotation
            WHERE api_key = $1 AND organization_id = $2
              AND ($3::text[] IS NULL OR document_id = ANY($3)) AND created_at <= $4
            RETURNING annotation_id
        ), views AS (
            DELETE FROM comments.annotation_view v USING gone
            WHERE v.api_key = $1 AND v.organization_id = $2 AND v.annotation_id = gone.annotation_id
        )
        SELECT count(*) FROM gone
        """,
        api_key,
        organization_id,
        None if document_ids is None else list(document_ids),
        created_by_ms,
    )
    return int(deleted)


class CommentDocuments:
    """The comments service's document data, as document migration sees it."""

    async def holds_document(
        self, conn: Connection, api_key: str, organization_id: str, document_id: str
    ) -> bool:
        return await table_holds_document(
            conn, "comments.annotation", api_key, organization_id, document_id
        )

    async def move_document(
        self, conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
    ) -> int:
        moved = await move_document_rows(
            conn, "comments.annotation", "body", api_key, organization_id, old_id, new_id
        )
        await conn.execute(
            "INSERT INTO comments.document_counter (api_key, organization_id, document_id,"
            " next_number) SELECT api_key, organization_id, $4, next_number"
            " FROM comments.document_counter"
            " WHERE api_key = $1 AND organization_id = $2 AND document_id = $3"
            " ON CONFLICT (api_key, organization_id, document_id) DO UPDATE"
            " SET next_number = greatest(comments.document_counter.next_number,"
            " excluded.next_number)",
            api_key,
            organization_id,
            old_id,
            new_id,
        )
        return moved
