"""What executions do with identity's events.

When identity deletes a document, a folder or an organization, the executions still running for
the documents that went (or anywhere in the organization) are cancelled with the reason
`document-deleted`, so their receivers hear of it. Their records stay: they are the trail of
what was approved, and they name the document only by id. A redelivered event finds them
ended and does nothing.
"""

from __future__ import annotations

import contextlib
import logging

from redline.envelope.errors import NotFound
from redline.proto.events import Event, deleted_documents
from redline.proto.subjects import DIRECTORY_DELETIONS
from redline.runtime.app import consuming
from redline.workflow.app_keys import ENGINE
from redline.workflow.engine.engine import Engine
from redline.workflow.engine.interventions import cancel_execution
from redline.workflow.executions import storage

log = logging.getLogger("redline.workflow.subscribers")

_CONSUMER = "workflow-directory"
DOCUMENT_DELETED = "document-deleted"


class DirectoryDeletions:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    async def handle(self, event: Event) -> None:
        taken = deleted_documents(event)
        if taken is None:
            return
        api_key, organization_id, documents = taken
        async with self._engine.pool.acquire() as conn:
            running_ids = await storage.in_flight_for_documents(
                conn, api_key, organization_id, documents
            )
        for execution_id in running_ids:
            with contextlib.suppress(NotFound):
                await self._engine.change(
                    execution_id, api_key, lambda t: cancel_execution(t, DOCUMENT_DELETED)
                )
        if running_ids:
            log.info("cancelled %d executions with event %s", len(running_ids), event.id)


# Runs the consumer while the app serves.
follow_directory_deletions = consuming(
    _CONSUMER, DIRECTORY_DELETIONS, lambda app: DirectoryDeletions(app[ENGINE]).handle
)
