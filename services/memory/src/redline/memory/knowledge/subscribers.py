"""What the knowledge base does with identity's events.

When identity deletes a document, a folder or an organization, the knowledge sources scoped to
the documents that went (or to the organization) are deleted with their files and vectors: they
were ingested for that scope, and the scope is gone. Only sources uploaded by the time of the
delete go, so a redelivered event deletes nothing new.
"""

from __future__ import annotations

from redline.memory.app_keys import KNOWLEDGE
from redline.memory.knowledge.service import KnowledgeService
from redline.memory.vectors import Tenant
from redline.runtime.directory_deletions import (
    DeletedDocuments,
    Forget,
    following_directory_deletions,
)


def _forgetting(knowledge: KnowledgeService) -> Forget:
    async def forget(gone: DeletedDocuments) -> int:
        return await knowledge.forget_documents(
            Tenant(gone.workspace_id, gone.api_key),
            gone.organization_id,
            gone.document_ids,
            gone.occurred_at,
        )

    return forget


# Runs the consumer while the app serves.
follow_directory_deletions = following_directory_deletions(
    "memory-directory", "knowledge sources deleted", lambda app: _forgetting(app[KNOWLEDGE])
)
