"""The credential cache in front of whichever backend answers (identity's tables or its RPC)."""

import pytest

from redline.envelope.auth import ApiKeyPrincipal, WorkspacePrincipal
from redline.envelope.errors import Unauthenticated
from redline.runtime.auth import CachedVerifier


class CountingBackend:
    """Answers like identity would for one key and one workspace, counting the questions."""

    def __init__(self) -> None:
        self.calls = 0
        self.valid_token = "good"

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        self.calls += 1
        if token != self.valid_token:
            raise Unauthenticated("Invalid API key or auth token.")
        return ApiKeyPrincipal(workspace_id="ws", api_key=api_key)

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        self.calls += 1
        if token != self.valid_token:
            raise Unauthenticated("Invalid workspace credentials.")
        return WorkspacePrincipal(workspace_id=workspace_id)


async def test_a_verified_key_is_answered_from_cache() -> None:
    backend = CountingBackend()
    verifier = CachedVerifier(backend, ttl_s=30)
    for _ in range(3):
        assert (await verifier.verify_api_key("k", "good")).api_key == "k"
    assert backend.calls == 1


async def test_failures_are_never_cached() -> None:
    backend = CountingBackend()
    verifier = CachedVerifier(backend, ttl_s=30)
    for _ in range(2):
        with pytest.raises(Unauthenticated):
            await verifier.verify_api_key("k", "bad")
    assert backend.calls == 2


async def test_forgetting_a_key_makes_its_old_token_fail_at_once() -> None:
    backend = CountingBackend()
    verifier = CachedVerifier(backend, ttl_s=30)
    await verifier.verify_api_key("k", "good")
    backend.valid_token = "rotated"
    verifier.forget_api_key("k")
    with pytest.raises(Unauthenticated):
        await verifier.verify_api_key("k", "good")


async def test_forgetting_one_workspace_keeps_the_others() -> None:
    backend = CountingBackend()
    verifier = CachedVerifier(backend, ttl_s=30)
    await verifier.verify_workspace("a", "good")
    await verifier.verify_workspace("b", "good")
    verifier.forget_workspace("a")
    await verifier.verify_workspace("a", "good")
    await verifier.verify_workspace("b", "good")
    assert backend.calls == 3


async def test_a_check_that_straddles_a_revocation_is_not_cached() -> None:
    backend = CountingBackend()
    verifier = CachedVerifier(backend, ttl_s=30)

    class SlowBackend(CountingBackend):
        async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
            principal = await backend.verify_api_key(api_key, token)
            # The reset lands while this (older) check is on its way back.
            verifier.forget_api_key(api_key)
            backend.valid_token = "rotated"
            return principal

    verifier._backend = SlowBackend()
    await verifier.verify_api_key("k", "good")
    verifier._backend = backend
    with pytest.raises(Unauthenticated):
        await verifier.verify_api_key("k", "good")
