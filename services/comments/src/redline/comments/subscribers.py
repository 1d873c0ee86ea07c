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

from functools import partial

from redline.comments.shared.storage import delete_documents
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
    "comments-directory", "annotations deleted", lambda app: partial(_forget, app[POOL])
)
