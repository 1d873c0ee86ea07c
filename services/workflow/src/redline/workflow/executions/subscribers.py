"""What executions do with identity's events.

When identity deletes a document, a folder or an organization, the executions still running for
the documents that went (or anywhere in the organization) are cancelled with the reason
`document-deleted`, so their receivers hear of it. Their records stay: they are the trail of
what was approved, and they name the document only by id. A redelivered event finds them
ended and does nothing.
"""

from __future__ import annotations

import contextlib

from redline.envelope.errors import NotFound
from redline.runtime.directory_deletions import (
    DeletedDocuments,
    Forget,
    following_directory_deletions,
)
from redline.workflow.app_keys import ENGINE
from redline.workflow.engine.engine import Engine
from redline.workflow.engine.interventions import cancel_execution
from redline.workflow.executions import storage

DOCUMENT_DELETED = "document-deleted"


def _cancelling(engine: Engine) -> Forget:
    async def cancel(gone: DeletedDocuments) -> int:
        async with engine.pool.acquire() as conn:
            running_ids = await storage.in_flight_for_documents(
                conn, gone.api_key, gone.organization_id, gone.document_ids
            )
        for execution_id in running_ids:
            with contextlib.suppress(NotFound):
                await engine.change(
                    execution_id, gone.api_key, lambda t: cancel_execution(t, DOCUMENT_DELETED)
                )
        return len(running_ids)

    return cancel


# Runs the consumer while the app serves.
follow_directory_deletions = following_directory_deletions(
    "workflow-directory", "executions cancelled", lambda app: _cancelling(app[ENGINE])
)
