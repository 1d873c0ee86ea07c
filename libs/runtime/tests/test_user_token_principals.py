"""Principals of user tokens: cached no longer than they live, and carried whole over the
`rpc.identity.auth.verify` reply."""

from __future__ import annotations

import time

import msgspec

from redline.envelope.auth import ApiKeyPrincipal, WorkspacePrincipal
from redline.proto.rpc import AuthVerified
from redline.runtime.auth import CachedVerifier, verified_reply


class ExpiringBackend:
    def __init__(self, expires_at: float) -> None:
        self.calls = 0
        self.expires_at = expires_at

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        self.calls += 1
        return ApiKeyPrincipal("ws", api_key, user_id="u1", expires_at=self.expires_at)

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        raise AssertionError("not asked")


async def test_a_live_user_token_is_answered_from_cache() -> None:
    backend = ExpiringBackend(time.time() + 60)
    verifier = CachedVerifier(backend, ttl_s=30)

    for _ in range(3):
        await verifier.verify_api_key("k", "jwt")

    assert backend.calls == 1


async def test_a_cached_user_token_is_checked_again_once_it_expired() -> None:
    backend = ExpiringBackend(time.time() - 1)
    verifier = CachedVerifier(backend, ttl_s=30)

    await verifier.verify_api_key("k", "jwt")
    await verifier.verify_api_key("k", "jwt")

    assert backend.calls == 2


def test_the_rpc_reply_carries_the_whole_principal() -> None:
    principal = ApiKeyPrincipal(
        "ws",
        "k",
        user_id="u1",
        grants=(("document", "d", "o", "viewer"), ("organization", "o", "o", "editor")),
        expires_at=1_900_000_000.0,
    )

    reply = msgspec.json.decode(msgspec.json.encode(verified_reply(principal)), type=AuthVerified)

    assert reply.userId == "u1"
    assert [(g.type, g.id, g.organizationId, g.accessRole) for g in reply.grants] == list(
        principal.grants
    )
    assert reply.expiresAt == principal.expires_at


def test_replies_of_older_identities_still_decode() -> None:
    reply = msgspec.json.decode(b'{"workspaceId": "ws", "apiKey": "k"}', type=AuthVerified)

    assert reply.grants == ()
    assert reply.expiresAt is None
