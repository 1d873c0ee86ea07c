"""Identity answers credential checks from its own tables (others ask it over NATS)."""

from __future__ import annotations

from redline.envelope.auth import ApiKeyPrincipal, WorkspacePrincipal
from redline.identity import errors, tokens
from redline.identity.permissions.user_tokens import UserTokens, looks_like_jwt
from redline.identity.workspace import storage
from redline.pg import Pool

# Compared against when the key is unknown, so both paths do the same work.
_DUMMY_DIGEST = tokens.digest("not-a-token")


class LocalAuthBackend:
    def __init__(self, pool: Pool, user_tokens: UserTokens | None = None) -> None:
        self._pool = pool
        # Without it, only the API key's auth tokens are accepted.
        self._user_tokens = user_tokens

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        if self._user_tokens is not None and looks_like_jwt(token):
            return await self._verify_user_token(api_key, token, self._user_tokens)
        found = await storage.live_token_hashes(self._pool, api_key)
        if found is None:
            tokens.matches(token, [_DUMMY_DIGEST])
            raise errors.bad_api_credentials()
        workspace_id, digests = found
        if not tokens.matches(token, digests):
            raise errors.bad_api_credentials()
        return ApiKeyPrincipal(workspace_id=workspace_id, api_key=api_key)

    async def _verify_user_token(
        self, api_key: str, token: str, user_tokens: UserTokens
    ) -> ApiKeyPrincipal:
        """A user token (JWT) of this API key: signed with its workspace's key, not expired,
        issued for this very key and after the key's auth token was last reset."""
        found = await storage.key_for_user_tokens(self._pool, api_key)
        if found is None:
            raise errors.bad_api_credentials()
        workspace_id, last_reset = found
        claims = user_tokens.verify(
            token, workspace_id=workspace_id, api_key=api_key, not_before=last_reset
        )
        return user_tokens.principal(claims)

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        stored = await storage.workspace_token_hash(self._pool, workspace_id)
        if not tokens.matches(token, [stored if stored is not None else _DUMMY_DIGEST]):
            raise errors.bad_workspace_credentials()
        if stored is None:
            raise errors.bad_workspace_credentials()
        return WorkspacePrincipal(workspace_id=workspace_id)
