"""The notify service's document data, as document migration sees it: activity records and
in-app notifications, each keeping its JSON in `record`, and users' notification preferences for
the document. The new id is taken when records or notifications are there under it (a
preference names a document without being any of its data); the move moves all three, in the
migration's one transaction. Immutable activity records move too: the move changes where they
belong, not what they say. A user who already set a preference for the new id keeps it."""

from __future__ import annotations

from redline.notify.notifications.storage import move_user_configs
from redline.pg import Connection
from redline.pg.documents import DocumentTables

_RECORDS = DocumentTables(("notify.activity", "record"), ("notify.notification", "record"))


class NotifyDocuments:
    async def holds_document(
        self, conn: Connection, api_key: str, organization_id: str, document_id: str
    ) -> bool:
        return await _RECORDS.holds_document(conn, api_key, organization_id, document_id)

    async def move_document(
        self, conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
    ) -> int:
        moved = await _RECORDS.move_document(conn, api_key, organization_id, old_id, new_id)
        return moved + await move_user_configs(conn, api_key, organization_id, old_id, new_id)


NOTIFY_DOCUMENTS = NotifyDocuments()
