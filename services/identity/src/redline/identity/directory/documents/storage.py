"""SQL of documents. A document's effective access type is not stored: reads join its folder's
(`folder_access_type`) and the service fills in the default, as the access model does."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import asyncpg
import msgspec

from redline.identity.directory.storage import hold_document_id
from redline.pg import Connection, Pool


class DocumentRow(msgspec.Struct, frozen=True):
    document_id: str
    name: str
    folder_id: str | None
    access_type: str | None
    # The effective access type of its folder; None when it is in no folder.
    folder_access_type: str | None
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    disabled: bool


class DocumentState(msgspec.Struct, frozen=True):
    """What a change event carries about a document."""

    document_id: str
    name: str
    folder_id: str | None
    access_type: str | None


def _state(r: asyncpg.Record) -> DocumentState:
    return DocumentState(r["document_id"], r["name"], r["folder_id"], r["access_type"])


def _row(r: asyncpg.Record) -> DocumentRow:
    return DocumentRow(
        r["document_id"],
        r["name"],
        r["folder_id"],
        r["access_type"],
        r["folder_access_type"],
        r["metadata"],
        r["created_at"],
        r["updated_at"],
        r["disabled"],
    )


InsertOutcome = Literal["inserted", "exists", "held"]


async def insert_document(
    conn: Connection,
    api_key: str,
    organization_id: str,
    document_id: str,
    name: str,
    folder_id: str | None,
    access_type: str | None,
    metadata: dict[str, Any],
) -> InsertOutcome:
    """Insert the document: `exists` when the organization has one with this id already, `held`
    when an unfinished migration moves a document to this id (it is kept free for it)."""
    await hold_document_id(conn, api_key, organization_id, document_id)
    inserted = await conn.fetchval(
        "INSERT INTO identity.document (api_key, organization_id, document_id, name, folder_id,"
        " access_type, metadata) SELECT $1, $2, $3, $4, $5, $6, $7"
        " WHERE NOT EXISTS (SELECT 1 FROM identity.document_migration m"
        "  WHERE m.api_key = $1 AND m.organization_id = $2 AND m.new_document_id = $3"
        "  AND m.status IN ('pending', 'in_progress'))"
        " ON CONFLICT DO NOTHING RETURNING true",
        api_key,
        organization_id,
        document_id,
        name,
        folder_id,
        access_type,
        metadata,
    )
    if inserted:
        return "inserted"
    exists = await document_exists(conn, api_key, organization_id, document_id)
    return "exists" if exists else "held"


async def document_exists(
    conn: Connection | Pool, api_key: str, organization_id: str, document_id: str
) -> bool:
    found = await conn.fetchval(
        "SELECT true FROM identity.document"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = $3",
        api_key,
        organization_id,
        document_id,
    )
    return bool(found)


async def existing_document_ids(
    conn: Connection | Pool, api_key: str, organization_id: str, document_ids: list[str]
) -> set[str]:
    """Which of these documents the organization has."""
    rows = await conn.fetch(
        "SELECT document_id FROM identity.document"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = ANY($3::text[])",
        api_key,
        organization_id,
        document_ids,
    )
    return {r["document_id"] for r in rows}


async def update_document(
    conn: Connection,
    api_key: str,
    organization_id: str,
    document_id: str,
    name: str | None,
    metadata_patch: dict[str, Any] | None,
    replace_metadata: bool = False,
) -> DocumentState | None:
    """Rename and change metadata: merged into the stored one (nulls removing keys), or, with
    `replace_metadata`, standing for it whole (nulls dropped)."""
    row = await conn.fetchrow(
        "UPDATE identity.document SET name = coalesce($4, name),"
        " metadata = CASE WHEN $5::jsonb IS NULL THEN metadata ELSE"
        " (SELECT coalesce(jsonb_object_agg(m.key, m.value), '{}'::jsonb)"
        " FROM jsonb_each(CASE WHEN $6 THEN $5::jsonb ELSE metadata || $5::jsonb END) AS m"
        " WHERE m.value <> 'null'::jsonb) END,"
        " updated_at = now() WHERE api_key = $1 AND organization_id = $2 AND document_id = $3"
        " RETURNING document_id, name, folder_id, access_type",
        api_key,
        organization_id,
        document_id,
        name,
        metadata_patch,
        replace_metadata,
    )
    return None if row is None else _state(row)


class FolderFilter(msgspec.Struct, frozen=True):
    """Only documents directly in `folder_id`; in no folder when it is None."""

    folder_id: str | None


_PAGE_SELECT = (
    "SELECT d.document_id, d.name, d.folder_id, d.access_type,"
    " f.effective_access_type AS folder_access_type, d.metadata, d.created_at, d.updated_at,"
    " d.disabled"
    " FROM identity.document d LEFT JOIN identity.folder f"
    " ON f.api_key = d.api_key AND f.organization_id = d.organization_id"
    " AND f.folder_id = d.folder_id"
    " WHERE d.api_key = $1 AND d.organization_id = $2"
    " AND ($3::text[] IS NULL OR d.document_id = ANY($3::text[]))"
    " AND (NOT $4::bool OR d.folder_id IS NOT DISTINCT FROM $5::text)"
    " AND ($6::text IS NULL OR d.document_id > $6)"
)


async def documents_page(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    document_ids: list[str] | None,
    folder: FolderFilter | None,
    after: str | None,
    limit: int,
    filters: list[MetadataFilter] | None = None,
) -> list[DocumentRow]:
    """In id order, after the id `after` (exclusive); only those every filter matches."""
    args: list[Any] = [
        api_key,
        organization_id,
        document_ids,
        folder is not None,
        None if folder is None else folder.folder_id,
        after,
        limit,
    ]
    conditions = "".join(f" AND {c}" for c in _filter_conditions(filters or [], args))
    # Only fixed fragments and numbered parameters are put together here.
    sql = _PAGE_SELECT + conditions + " ORDER BY d.document_id LIMIT $7"
    rows = await conn.fetch(sql, *args)
    return [_row(r) for r in rows]


async def document_ids_in_folder(
    conn: Connection | Pool, api_key: str, organization_id: str, folder_id: str, limit: int
) -> list[str]:
    """Ids of the documents directly in the folder, in id order (index document_in_folder)."""
    rows = await conn.fetch(
        "SELECT document_id FROM identity.document"
        " WHERE api_key = $1 AND organization_id = $2 AND folder_id = $3"
        " ORDER BY document_id LIMIT $4",
        api_key,
        organization_id,
        folder_id,
        limit,
    )
    return [r["document_id"] for r in rows]


async def delete_documents(
    conn: Connection, api_key: str, organization_id: str, document_ids: list[str]
) -> list[str]:
    """Delete the documents and every grant on them; returns the ids that existed."""
    rows = await conn.fetch(
        "WITH gone AS ("
        " DELETE FROM identity.document WHERE api_key = $1 AND organization_id = $2"
        " AND document_id = ANY($3::text[]) RETURNING document_id),"
        " grants AS ("
        " DELETE FROM identity.access_grant WHERE api_key = $1 AND organization_id = $2"
        " AND resource_type = 'document' AND resource_id IN (SELECT document_id FROM gone))"
        " SELECT document_id FROM gone",
        api_key,
        organization_id,
        document_ids,
    )
    return [r["document_id"] for r in rows]


async def move_documents(
    conn: Connection,
    api_key: str,
    organization_id: str,
    document_ids: list[str],
    folder_id: str | None,
) -> list[DocumentState]:
    """Put the documents in `folder_id` (in no folder when None); returns those that exist."""
    rows = await conn.fetch(
        "UPDATE identity.document SET folder_id = $4, updated_at = now()"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = ANY($3::text[])"
        " RETURNING document_id, name, folder_id, access_type",
        api_key,
        organization_id,
        document_ids,
        folder_id,
    )
    return [_state(r) for r in rows]


async def set_document_access(
    conn: Connection,
    api_key: str,
    organization_id: str,
    document_ids: list[str],
    access_type: str,
) -> list[DocumentState]:
    rows = await conn.fetch(
        "UPDATE identity.document SET access_type = $4, updated_at = now()"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = ANY($3::text[])"
        " RETURNING document_id, name, folder_id, access_type",
        api_key,
        organization_id,
        document_ids,
        access_type,
    )
    return [_state(r) for r in rows]


# count -----------------------------------------------------------------------------------------

# One condition per filter operator on the metadata value `v` and the filter's value `x`
# (jsonb). Range operators compare values of one JSON type only; `!=` and `not-in` need the field.
_FILTER_SQL = {
    "==": "{v} = {x}",
    "!=": "{v} IS NOT NULL AND {v} <> {x}",
    "<": "jsonb_typeof({v}) = jsonb_typeof({x}) AND {v} < {x}",
    "<=": "jsonb_typeof({v}) = jsonb_typeof({x}) AND {v} <= {x}",
    ">": "jsonb_typeof({v}) = jsonb_typeof({x}) AND {v} > {x}",
    ">=": "jsonb_typeof({v}) = jsonb_typeof({x}) AND {v} >= {x}",
    "in": "{v} IN (SELECT jsonb_array_elements({x}))",
    "not-in": "{v} IS NOT NULL AND {v} NOT IN (SELECT jsonb_array_elements({x}))",
    "array-contains": "jsonb_typeof({v}) = 'array' AND {v} @> jsonb_build_array({x})",
    "array-contains-any": "jsonb_typeof({v}) = 'array' AND EXISTS"
    " (SELECT 1 FROM jsonb_array_elements({x}) e WHERE {v} @> jsonb_build_array(e))",
}


class MetadataFilter(msgspec.Struct, frozen=True):
    path: list[str]  # keys into the document's metadata
    operator: str  # a key of _FILTER_SQL
    value: Any


def _filter_conditions(filters: list[MetadataFilter], args: list[Any]) -> list[str]:
    """One SQL condition per filter on the document row `d`, its path and value appended to
    `args` as numbered parameters: only fixed fragments and parameter numbers go in the SQL."""
    conditions = []
    for f in filters:
        args += [f.path, f.value]
        path, value = len(args) - 1, len(args)
        value_sql = f"(d.metadata #> ${path}::text[])"
        conditions.append(_FILTER_SQL[f.operator].format(v=value_sql, x=f"${value}::jsonb"))
    return conditions


async def count_documents(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    folder: FolderFilter | None,
    exclude_folder_documents: bool,
    filters: list[MetadataFilter],
) -> int:
    conditions = [
        "d.api_key = $1",
        "d.organization_id = $2",
        "(NOT $3::bool OR d.folder_id IS NOT DISTINCT FROM $4::text)",
        "(NOT $5::bool OR d.folder_id IS NULL)",
    ]
    args: list[Any] = [
        api_key,
        organization_id,
        folder is not None,
        None if folder is None else folder.folder_id,
        exclude_folder_documents,
    ]
    conditions += _filter_conditions(filters, args)
    # Only fixed fragments and numbered parameters are put together here.
    sql = "SELECT count(*) FROM identity.document d WHERE " + " AND ".join(conditions)  # noqa: S608
    found: int = await conn.fetchval(sql, *args)
    return found
