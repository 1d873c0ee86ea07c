"""Credential checks with a short cache, shared by every service in a process.

A verified credential is cached for at most `ttl_s` (30 s by default) and dropped at once when
identity announces `identity.key.revoked`; identity also drops its own process's entries before it
answers the reset, so the old token fails on the very next request.
"""

from __future__ import annotations

import hashlib
import time
from typing import Protocol

from redline.bus import Bus, rpc
from redline.envelope.auth import ApiKeyPrincipal, WorkspacePrincipal
from redline.proto.rpc import AuthVerified, ResourceGrant, VerifyApiKey, VerifyWorkspace
from redline.proto.subjects import RPC_AUTH_VERIFY
from redline.runtime.cache import TtlCache


class AuthBackend(Protocol):
    """Answers uncached: identity's own storage, or `rpc.identity.auth.verify` elsewhere."""

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal: ...

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal: ...


def _cache_key(kind: str, ident: str, token: str) -> tuple[str, str, bytes]:
    # The token itself is never kept in memory as a key; its digest is.
    return kind, ident, hashlib.sha256(token.encode()).digest()


def _expired(principal: ApiKeyPrincipal) -> bool:
    # A user token must fail the moment it expires, not when its cache entry does.
    return principal.expires_at is not None and principal.expires_at <= time.time()


def verified_reply(principal: ApiKeyPrincipal) -> AuthVerified:
    """The `rpc.identity.auth.verify` reply for an API-key principal (RpcAuthBackend's inverse)."""
    return AuthVerified(
        workspaceId=principal.workspace_id,
        apiKey=principal.api_key,
        userId=principal.user_id,
        grants=tuple(ResourceGrant(t, i, o, r) for t, i, o, r in principal.grants),
        expiresAt=principal.expires_at,
    )


class CachedVerifier:
    """An `AuthVerifier` that remembers successful checks for a short while."""

    def __init__(self, backend: AuthBackend, ttl_s: float = 30.0) -> None:
        self._backend = backend
        self._checked: TtlCache[tuple[str, str, bytes], ApiKeyPrincipal | WorkspacePrincipal]
        self._checked = TtlCache(ttl_s)

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        key = _cache_key("k", api_key, token)
        hit = self._checked.get(key)
        if isinstance(hit, ApiKeyPrincipal) and not _expired(hit):
            return hit
        epoch = self._checked.epoch
        principal = await self._backend.verify_api_key(api_key, token)
        self._checked.put(key, principal, since=epoch)
        return principal

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        key = _cache_key("w", workspace_id, token)
        hit = self._checked.get(key)
        if isinstance(hit, WorkspacePrincipal):
            return hit
        epoch = self._checked.epoch
        principal = await self._backend.verify_workspace(workspace_id, token)
        self._checked.put(key, principal, since=epoch)
        return principal

    def forget_api_key(self, api_key: str) -> None:
        self._checked.drop_where(lambda key: key[0] == "k" and key[1] == api_key)

    def forget_workspace(self, workspace_id: str) -> None:
        self._checked.drop_where(lambda key: key[0] == "w" and key[1] == workspace_id)


class RpcAuthBackend:
    """Asks identity over `rpc.identity.auth.verify` (services other than identity)."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        reply = await rpc.call(
            self._bus.nc, RPC_AUTH_VERIFY, VerifyApiKey(api_key, token), AuthVerified
        )
        assert reply.apiKey is not None
        return ApiKeyPrincipal(
            reply.workspaceId,
            reply.apiKey,
            reply.userId,
            grants=tuple((g.type, g.id, g.organizationId, g.accessRole) for g in reply.grants),
            expires_at=reply.expiresAt,
        )

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        reply = await rpc.call(
            self._bus.nc, RPC_AUTH_VERIFY, VerifyWorkspace(workspace_id, token), AuthVerified
        )
        return WorkspacePrincipal(reply.workspaceId)
