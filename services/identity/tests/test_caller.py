"""Who is calling: a user token of a key may not do the key holder's business, and an API key
another service names resolves to its workspace, or to NOT_FOUND."""

from __future__ import annotations

import pytest

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import NotFound, PermissionDenied
from redline.identity.caller import caller_named, require_key_caller
from redline.pg import Pool


def test_the_keys_own_auth_token_may_manage_the_key() -> None:
    require_key_caller(ApiKeyPrincipal(workspace_id="ws", api_key="key"))


def test_a_user_token_of_the_key_may_not() -> None:
    user = ApiKeyPrincipal(workspace_id="ws", api_key="key", user_id="u1")

    with pytest.raises(PermissionDenied):
        require_key_caller(user)


async def test_a_named_key_acts_in_its_own_workspace(pool: Pool) -> None:
    assert await caller_named(pool, "key-1") == ApiKeyPrincipal(
        workspace_id="ws-1", api_key="key-1"
    )


async def test_a_named_key_no_workspace_holds_is_not_found(pool: Pool) -> None:
    with pytest.raises(NotFound, match=r"^API key not found\.$"):
        await caller_named(pool, "key-2")
