"""User tokens: issuing, verifying, and the principal a verified token stands for."""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime

import jwt
import pytest

from redline.envelope.errors import Unauthenticated
from redline.identity.permissions.user_tokens import TokenResource, UserTokens, looks_like_jwt
from redline.runtime.keys import derive_key

SECRET = secrets.token_bytes(32)
TTL = 48 * 3600


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def issue(tokens: UserTokens, **extra: object) -> str:
    fields: dict[str, object] = {
        "workspace_id": "ws1",
        "api_key": "key1",
        "user_id": "u1",
        "resources": [],
        **extra,
    }
    return tokens.issue(**fields)  # type: ignore[arg-type]


def test_tokens_are_hs256_under_the_workspaces_derived_key() -> None:
    token = issue(UserTokens(SECRET, TTL), name="Ada", email="ada@example.com")

    key = derive_key(SECRET, "identity.user-token:ws1")
    claims = jwt.decode(token, key, algorithms=["HS256"])
    assert claims["sub"] == "u1"
    assert claims["ws"] == "ws1"
    assert claims["key"] == "key1"
    assert claims["res"] == []
    assert claims["name"] == "Ada"
    assert claims["email"] == "ada@example.com"
    assert "isAdmin" not in claims
    assert TTL <= claims["exp"] - claims["iat"] <= TTL + 1
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(token, derive_key(SECRET, "identity.user-token:ws2"), algorithms=["HS256"])


def test_a_token_verifies_for_its_workspace_and_key_only() -> None:
    tokens = UserTokens(SECRET, TTL)
    token = issue(tokens)

    claims = tokens.verify(token, workspace_id="ws1", api_key="key1")
    assert claims.sub == "u1"
    with pytest.raises(Unauthenticated):
        tokens.verify(token, workspace_id="ws1", api_key="key2")
    with pytest.raises(Unauthenticated):
        tokens.verify(token, workspace_id="ws2", api_key="key1")
    with pytest.raises(Unauthenticated):
        UserTokens(secrets.token_bytes(32), TTL).verify(token, workspace_id="ws1", api_key="key1")


def test_a_token_expires_after_its_lifetime() -> None:
    clock = Clock()
    tokens = UserTokens(SECRET, 60, clock=clock)
    token = issue(tokens)

    clock.now += 59
    tokens.verify(token, workspace_id="ws1", api_key="key1")
    clock.now += 2
    with pytest.raises(Unauthenticated):
        tokens.verify(token, workspace_id="ws1", api_key="key1")


def test_tokens_issued_before_a_reset_are_revoked() -> None:
    clock = Clock()
    tokens = UserTokens(SECRET, TTL, clock=clock)
    token = issue(tokens)

    later = datetime.fromtimestamp(clock.now + 5, UTC)
    earlier = datetime.fromtimestamp(clock.now - 5, UTC)
    tokens.verify(token, workspace_id="ws1", api_key="key1", not_before=earlier)
    with pytest.raises(Unauthenticated):
        tokens.verify(token, workspace_id="ws1", api_key="key1", not_before=later)


@pytest.mark.parametrize(
    "forge",
    [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),
        lambda t: t.split(".")[0] + "." + t.split(".")[1] + ".",
        lambda t: "garbage",
        lambda t: jwt.encode(
            jwt.decode(t, options={"verify_signature": False}),
            secrets.token_bytes(32),
            algorithm="HS256",
        ),
    ],
)
def test_forged_tokens_are_refused(forge: object) -> None:
    tokens = UserTokens(SECRET, TTL)
    token = issue(tokens)

    with pytest.raises(Unauthenticated):
        tokens.verify(forge(token), workspace_id="ws1", api_key="key1")  # type: ignore[operator]


def test_a_token_without_required_claims_is_refused() -> None:
    key = derive_key(SECRET, "identity.user-token:ws1")
    no_expiry = jwt.encode(
        {"sub": "u1", "ws": "ws1", "key": "key1", "iat": int(time.time())}, key, algorithm="HS256"
    )

    with pytest.raises(Unauthenticated):
        UserTokens(SECRET, TTL).verify(no_expiry, workspace_id="ws1", api_key="key1")


def test_the_principal_carries_live_resources_and_expires_with_the_next_one() -> None:
    clock = Clock()
    tokens = UserTokens(SECRET, TTL, clock=clock)
    soon = int(clock.now) + 100
    token = issue(
        tokens,
        resources=[
            TokenResource("document", "d", "o", "viewer"),
            TokenResource("folder", "f", "o", "editor", expiresAt=soon),
            TokenResource("organization", "gone", "gone", "editor", expiresAt=int(clock.now) - 1),
        ],
    )

    principal = tokens.principal(tokens.verify(token, workspace_id="ws1", api_key="key1"))

    assert principal.workspace_id == "ws1"
    assert principal.api_key == "key1"
    assert principal.user_id == "u1"
    assert principal.grants == (("document", "d", "o", "viewer"), ("folder", "f", "o", "editor"))
    assert principal.expires_at == soon


def test_auth_tokens_do_not_look_like_user_tokens() -> None:
    assert looks_like_jwt(issue(UserTokens(SECRET, TTL)))
    for _ in range(100):
        assert not looks_like_jwt(secrets.token_urlsafe(32))
