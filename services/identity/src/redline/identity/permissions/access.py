"""Answering access questions: what role a user has on a document, and the RPC other services
ask (`rpc.identity.access.check`)."""

from __future__ import annotations

from redline.identity.fields import AccessType
from redline.identity.permissions import storage
from redline.identity.permissions.access_model import Decision, decide, with_token_grants
from redline.pg import Pool


class AccessService:
    def __init__(self, pool: Pool, default_access_type: AccessType) -> None:
        self._pool = pool
        self._default_access_type: AccessType = default_access_type

    async def effective_access(
        self,
        api_key: str,
        organization_id: str,
        document_id: str,
        user_id: str,
        token_grants: dict[tuple[str, str], str] | None = None,
    ) -> Decision:
        """The user's role on the document. `token_grants` are resources a user token carries,
        which count as grants for the requests made with that token."""
        facts = await storage.access_facts(
            self._pool, api_key, organization_id, document_id, user_id
        )
        if token_grants:
            facts = type(facts)(
                facts.organization_id,
                facts.document_id,
                facts.access_type,
                facts.folders,
                with_token_grants(facts.grants, token_grants),
            )
        return decide(facts, self._default_access_type)
