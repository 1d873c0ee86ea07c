"""Workflow's document data, as document migration sees it: executions dispatched for a
document. A migration gives them the new document id; definitions keep the ids they were
written with (they are configuration, which their owner edits)."""

from __future__ import annotations

from redline.pg import Connection
from redline.pg.documents import move_document_rows, table_holds_document

_EXECUTIONS = "workflow.execution"


class WorkflowDocuments:
    async def holds_document(
        self, conn: Connection, api_key: str, organization_id: str, document_id: str
    ) -> bool:
        return await table_holds_document(conn, _EXECUTIONS, api_key, organization_id, document_id)

    async def move_document(
        self, conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
    ) -> int:
        return await move_document_rows(
            conn, _EXECUTIONS, None, api_key, organization_id, old_id, new_id
        )
