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

import contextlib
import logging
from collections.abc import AsyncIterator

from aiohttp import web

from redline.bus import DurableConsumer
from redline.comments.storage.annotations import delete_documents
from redline.pg import Pool
from redline.proto.events import Event, deleted_documents
from redline.proto.subjects import DIRECTORY_DELETIONS
from redline.runtime.app import running
from redline.runtime.resources import BUS, POOL

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


@contextlib.asynccontextmanager
async def follow_directory_deletions(app: web.Application) -> AsyncIterator[None]:
    """A cleanup context running the consumer while the app serves."""
    consumer = DurableConsumer(
        app[BUS].js,
        _CONSUMER,
        DirectoryDeletions(app[POOL]).handle,
        filter_subjects=DIRECTORY_DELETIONS,
    )
    async with running(consumer.run(), name=_CONSUMER):
        yield
