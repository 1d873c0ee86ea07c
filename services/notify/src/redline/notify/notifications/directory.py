"""What in-app notifications do when identity deletes a document, a folder or an organization:
the notifications of the documents that went are deleted, with every user's feed entry of them
(for an organization, all of its notifications, those without a document too). Left behind, they
would point users at documents that no longer exist. Only notifications made by the time of the
delete go: a document added again afterwards keeps what is written about it since, and a
redelivered event deletes nothing new.
"""

from __future__ import annotations

from functools import partial

from redline.notify.notifications.storage import delete_documents
from redline.pg import Pool
from redline.runtime.directory_deletions import DeletedDocuments, following_directory_deletions
from redline.runtime.resources import POOL


async def _forget(pool: Pool, gone: DeletedDocuments) -> int:
    async with pool.acquire() as conn:
        return await delete_documents(
            conn, gone.api_key, gone.organization_id, gone.document_ids, gone.occurred_at
        )


# Runs the consumer while the app serves.
follow_directory_deletions = following_directory_deletions(
    "notify-notifications-directory",
    "notifications deleted",
    lambda app: partial(_forget, app[POOL]),
)
