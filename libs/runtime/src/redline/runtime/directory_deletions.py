"""Following identity's directory deletions: when a document, a folder or an organization is
deleted, each service forgets what it holds of the documents that went (or of the whole
organization), through a durable consumer of its own. The event's reading, the consumer and
the log line are here once; what "forget" means is each service's."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable

import msgspec
from aiohttp import web

from redline.proto.events import Event, deleted_documents
from redline.proto.subjects import DIRECTORY_DELETIONS
from redline.runtime.app import consuming

log = logging.getLogger("redline.runtime.directory_deletions")


class DeletedDocuments(msgspec.Struct, frozen=True, kw_only=True):
    """What one deletion took."""

    workspace_id: str
    api_key: str
    organization_id: str
    # None when the whole organization went.
    document_ids: list[str] | None
    # What was there by this time goes; a redelivered event finds nothing more.
    occurred_at: int


# Forgets what the service holds of the deleted documents; how many things it forgot.
Forget = Callable[[DeletedDocuments], Awaitable[int]]


def following_directory_deletions(
    durable: str, what: str, forget_of: Callable[[web.Application], Forget]
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    """A cleanup context running the durable consumer `durable` of the directory's deletions,
    handing each deletion to `forget_of(app)`; `what` says in the log what was done
    (`"annotations deleted"`)."""

    def handler_of(app: web.Application) -> Callable[[Event], Awaitable[None]]:
        forget = forget_of(app)

        async def handle(event: Event) -> None:
            taken = deleted_documents(event)
            if taken is None:
                return
            api_key, organization_id, document_ids = taken
            gone = DeletedDocuments(
                workspace_id=event.workspaceId,
                api_key=api_key,
                organization_id=organization_id,
                document_ids=document_ids,
                occurred_at=event.occurredAt,
            )
            forgotten = await forget(gone)
            if forgotten:
                log.info("%s: %d %s after event %s", durable, forgotten, what, event.id)

        return handle

    return consuming(durable, DIRECTORY_DELETIONS, handler_of)
