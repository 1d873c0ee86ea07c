"""Memory's document data, as document migration sees it: knowledge scoped to the document,
and its judgments with their vectors.

The migration runs `move_document` in its transaction with the reply event. The judgments'
vectors are moved first, inside it: a failure before the commit rolls the rows back and the
redelivered event moves again (the vector move is idempotent), so rows and vectors end on the
new id together.
"""

from __future__ import annotations

from redline.memory.judgments import storage as judgments
from redline.memory.knowledge import storage as knowledge
from redline.memory.vectors import JUDGMENTS, Tenant, VectorFilter, VectorStore
from redline.pg import Connection
from redline.pg.documents import DocumentTables, move_document_rows

# Knowledge scoped to a document, and judgments: the tables that make a document id taken.
_TABLES = DocumentTables(("memory.source", None), ("memory.judgment", None))


class MemoryDocuments:
    def __init__(self, vectors: VectorStore) -> None:
        self._vectors = vectors

    async def holds_document(
        self, conn: Connection, api_key: str, organization_id: str, document_id: str
    ) -> bool:
        return await _TABLES.holds_document(conn, api_key, organization_id, document_id)

    async def move_document(
        self, conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
    ) -> int:
        workspace_id = await judgments.workspace_of(conn, api_key)
        if workspace_id is not None:
            where = VectorFilter(
                tenant=Tenant(workspace_id, api_key),
                equals={"organizationId": organization_id, "documentId": old_id},
            )
            await self._vectors.set_payload(JUDGMENTS, where, {"documentId": new_id})
        sources = await knowledge.move_document(conn, api_key, organization_id, old_id, new_id)
        recorded = await move_document_rows(
            conn, "memory.judgment", None, api_key, organization_id, old_id, new_id
        )
        return sources + recorded
