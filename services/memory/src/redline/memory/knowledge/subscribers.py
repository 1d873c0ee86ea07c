"""What the knowledge base does with identity's events.

When identity deletes a document, a folder or an organization, the knowledge sources scoped to
the documents that went (or to the organization) are deleted with their files and vectors: they
were ingested for that scope, and the scope is gone. Only sources uploaded by the time of the
delete go, so a redelivered event deletes nothing new.
"""

from __future__ import annotations

import logging

from redline.memory.app_keys import KNOWLEDGE
from redline.memory.knowledge.service import KnowledgeService
from redline.memory.vectors import Tenant
from redline.proto.events import Event, deleted_documents
from redline.proto.subjects import DIRECTORY_DELETIONS
from redline.runtime.app import consuming

log = logging.getLogger("redline.memory.subscribers")

_CONSUMER = "memory-directory"


class DirectoryDeletions:
    def __init__(self, knowledge: KnowledgeService) -> None:
        self._knowledge = knowledge

    async def handle(self, event: Event) -> None:
        taken = deleted_documents(event)
        if taken is None:
            return
        api_key, organization_id, documents = taken
        deleted = await self._knowledge.forget_documents(
            Tenant(event.workspaceId, api_key), organization_id, documents, event.occurredAt
        )
        if deleted:
            log.info("deleted %d knowledge sources with event %s", deleted, event.id)


# Runs the consumer while the app serves.
follow_directory_deletions = consuming(
    _CONSUMER, DIRECTORY_DELETIONS, lambda app: DirectoryDeletions(app[KNOWLEDGE]).handle
)
