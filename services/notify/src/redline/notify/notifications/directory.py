"""What in-app notifications do when identity deletes a document, a folder or an organization:
the notifications of the documents that went are deleted, with every user's feed entry of them
(for an organization, all of its notifications, those without a document too). Left behind, they
would point users at documents that no longer exist. Only notifications made by the time of the
delete go: a document added again afterwards keeps what is written about it since, and a
redelivered event deletes nothing new.
"""

from __future__ import annotations

import logging

from redline.notify.notifications.storage import delete_documents
from redline.pg import Pool
from redline.proto.events import Event, deleted_documents
from redline.proto.subjects import DIRECTORY_DELETIONS
from redline.runtime.app import consuming
from redline.runtime.resources import POOL

log = logging.getLogger("redline.notify.notifications.directory")

_CONSUMER = "notify-notifications-directory"


class DirectoryDeletions:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def handle(self, event: Event) -> None:
        taken = deleted_documents(event)
        if taken is None:
            return
        api_key, organization_id, documents = taken
        async with self._pool.acquire() as conn:
            deleted = await delete_documents(
                conn, api_key, organization_id, documents, event.occurredAt
            )
        if deleted:
            log.info("deleted %d notifications of documents deleted by event %s", deleted, event.id)


# Runs the consumer while the app serves.
follow_directory_deletions = consuming(
    _CONSUMER, DIRECTORY_DELETIONS, lambda app: DirectoryDeletions(app[POOL]).handle
)
