"""Rows keyed by (api_key, organization_id, document_id) whose stored JSON names the document in
`metadata.documentId`, as document migration sees them: whether a table holds a document, and
moving its rows to a new id. Comments' annotations and notify's activity records and in-app
notifications are such rows; a service whose document data is only such tables takes part in
migration with `DocumentTables`.
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


class DocumentTables:
    """A service's document data kept in plain tables, as document migration sees it: the new id
    is taken when any of the tables holds rows under it, and the move moves every table's rows
    (in the migration's one transaction)."""

    def __init__(self, *tables: tuple[str, str | None]) -> None:
        # (table, the column of stored JSON that names the document, or None)
        self._tables = tables

    async def holds_document(
        self, conn: Connection, api_key: str, organization_id: str, document_id: str
    ) -> bool:
        for table, _ in self._tables:
            if await table_holds_document(conn, table, api_key, organization_id, document_id):
                return True
        return False

    async def move_document(
        self, conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
    ) -> int:
        moved = 0
        for table, json_column in self._tables:
            moved += await move_document_rows(
                conn, table, json_column, api_key, organization_id, old_id, new_id
            )
        return moved
