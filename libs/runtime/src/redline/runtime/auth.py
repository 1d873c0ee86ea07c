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
from redline.proto.rpc import AuthVerified, VerifyApiKey, VerifyWorkspace
from redline.proto.subjects import RPC_AUTH_VERIFY

_MAX_ENTRIES = 100_000


class AuthBackend(Protocol):
    """Answers uncached: identity's own storage, or `rpc.identity.auth.verify` elsewhere."""

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal: ...

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal: ...


def _cache_key(kind: str, ident: str, token: str) -> str:
    # The token itself is never kept in memory as a key; its digest is.
    return kind + ":" + ident + ":" + hashlib.sha256(token.encode()).hexdigest()


class CachedVerifier:
    """An `AuthVerifier` that remembers successful checks for a short while."""

    def __init__(self, backend: AuthBackend, ttl_s: float = 30.0) -> None:
        self._backend = backend
        self._ttl_s = ttl_s
        self._entries: dict[str, tuple[float, ApiKeyPrincipal | WorkspacePrincipal]] = {}

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        key = _cache_key("k", api_key, token)
        hit = self._entries.get(key)
        if hit is not None and hit[0] > time.monotonic() and isinstance(hit[1], ApiKeyPrincipal):
            return hit[1]
        principal = await self._backend.verify_api_key(api_key, token)
        self._remember(key, principal)
        return principal

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        key = _cache_key("w", workspace_id, token)
        hit = self._entries.get(key)
        if hit is not None and hit[0] > time.monotonic() and isinstance(hit[1], WorkspacePrincipal):
            return hit[1]
        principal = await self._backend.verify_workspace(workspace_id, token)
        self._remember(key, principal)
        return principal

    def _remember(self, key: str, principal: ApiKeyPrincipal | WorkspacePrincipal) -> None:
        if len(self._entries) >= _MAX_ENTRIES:
            self._entries.clear()
        self._entries[key] = (time.monotonic() + self._ttl_s, principal)

    def forget_api_key(self, api_key: str) -> None:
        prefix = "k:" + api_key + ":"
        for key in [k for k in self._entries if k.startswith(prefix)]:
            del self._entries[key]

    def forget_workspace(self, workspace_id: str) -> None:
        prefix = "w:" + workspace_id + ":"
        for key in [k for k in self._entries if k.startswith(prefix)]:
            del self._entries[key]


class RpcAuthBackend:
    """Asks identity over `rpc.identity.auth.verify` (services other than identity)."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        reply = await rpc.call(
            self._bus.nc, RPC_AUTH_VERIFY, VerifyApiKey(api_key, token), AuthVerified
        )
        assert reply.apiKey is not None
        return ApiKeyPrincipal(reply.workspaceId, reply.apiKey, reply.userId)

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        reply = await rpc.call(
            self._bus.nc, RPC_AUTH_VERIFY, VerifyWorkspace(workspace_id, token), AuthVerified
        )
        return WorkspacePrincipal(reply.workspaceId)
