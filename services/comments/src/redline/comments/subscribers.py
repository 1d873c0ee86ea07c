"""What the comments service does with other services' events.

Identity owns the directory. When it deletes a document, a folder or an organization, the
comment annotations of the documents that went are deleted too: left behind, they would sit
under ids identity no longer knows, which count as the key's default access type (`public`
unless set otherwise), so user tokens would reach threads their document had kept from them.
Only annotations created by the time of the delete go: a document added again afterwards keeps
what is written on it since, and a redelivered event deletes nothing new. No webhook or
activity record follows; the data went with its document.
"""

from __future__ import annotations

import logging

from redline.comments.shared.storage import delete_documents
from redline.pg import Pool
from redline.proto.events import Event, deleted_documents
from redline.proto.subjects import DIRECTORY_DELETIONS
from redline.runtime.app import consuming
from redline.runtime.resources import POOL

log = logging.getLogger("redline.comments.subscribers")

_CONSUMER = "comments-directory"


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
            log.info("deleted %d annotations of documents deleted by event %s", deleted, event.id)


# Runs the consumer while the app serves.
follow_directory_deletions = consuming(
    _CONSUMER, DIRECTORY_DELETIONS, lambda app: DirectoryDeletions(app[POOL]).handle
)
