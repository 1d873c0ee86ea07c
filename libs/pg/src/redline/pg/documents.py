"""Rows keyed by (api_key, organization_id, document_id) whose stored JSON names the document in
`metadata.documentId`, as document migration sees them: whether a table holds a document, and
moving its rows to a new id. Comments' annotations and notify's activity records and in-app
notifications are such rows.
"""

from __future__ import annotations

from redline.pg.names import schema_name, table_name
from redline.pg.pool import Connection


async def table_holds_document(
    conn: Connection, table: str, api_key: str, organization_id: str, document_id: str
) -> bool:
    found = await conn.fetchval(
        f"SELECT EXISTS (SELECT 1 FROM {table_name(table)}"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = $3)",
        api_key,
        organization_id,
        document_id,
    )
    return bool(found)


async def move_document_rows(
    conn: Connection,
    table: str,
    json_column: str | None,
    api_key: str,
    organization_id: str,
    old_id: str,
    new_id: str,
) -> int:
    """Give the document's rows the new id, in the column and in the stored JSON's metadata
    (where the rows keep JSON); returns how many moved."""
    also_json = ""
    if json_column is not None:
        column = schema_name(json_column)
        also_json = (
            f", {column} = jsonb_set({column}, '{{metadata,documentId}}', to_jsonb($4::text), true)"
        )
    status = await conn.execute(
        f"UPDATE {table_name(table)} SET document_id = $4{also_json}"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = $3",
        api_key,
        organization_id,
        old_id,
        new_id,
    )
    return int(status.split()[-1])
