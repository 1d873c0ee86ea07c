"""The notify service's document data, as document migration sees it: activity records and
in-app notifications. The new id is taken when either holds something under it; the move moves
both, in the migration's one transaction."""

from __future__ import annotations

from redline.notify.activities.storage import ActivityDocuments
from redline.notify.notifications.storage import NotificationDocuments
from redline.pg import Connection
from redline.runtime.document_migration import DocumentStore


class NotifyDocuments:
    def __init__(self) -> None:
        self._stores: tuple[DocumentStore, ...] = (ActivityDocuments(), NotificationDocuments())

    async def holds_document(
        self, conn: Connection, api_key: str, organization_id: str, document_id: str
    ) -> bool:
        for store in self._stores:
            if await store.holds_document(conn, api_key, organization_id, document_id):
                return True
        return False

    async def move_document(
        self, conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
    ) -> int:
        moved = 0
        for store in self._stores:
            moved += await store.move_document(conn, api_key, organization_id, old_id, new_id)
        return moved
