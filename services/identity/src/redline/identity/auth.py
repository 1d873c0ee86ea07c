"""Identity answers credential checks from its own tables (others ask it over NATS)."""

from __future__ import annotations

from redline.envelope.auth import ApiKeyPrincipal, WorkspacePrincipal
from redline.identity import errors, tokens
from redline.identity.storage import workspace as storage
from redline.pg import Pool

# Compared against when the key is unknown, so both paths do the same work.
_DUMMY_DIGEST = tokens.digest("not-a-token")


class LocalAuthBackend:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        found = await storage.live_token_hashes(self._pool, api_key)
        if found is None:
            tokens.matches(token, [_DUMMY_DIGEST])
            raise errors.bad_api_credentials()
        workspace_id, digests = found
        if not tokens.matches(token, digests):
            raise errors.bad_api_credentials()
        return ApiKeyPrincipal(workspace_id=workspace_id, api_key=api_key)

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        stored = await storage.workspace_token_hash(self._pool, workspace_id)
        if not tokens.matches(token, [stored if stored is not None else _DUMMY_DIGEST]):
            raise errors.bad_workspace_credentials()
        if stored is None:
            raise errors.bad_workspace_credentials()
        return WorkspacePrincipal(workspace_id=workspace_id)
