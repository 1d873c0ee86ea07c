"""Who is calling: header extraction for both auth levels, and the verifier interface.

The brand word in header names comes from settings (`x-redline-api-key`, and `x-<brand>-…` for
each extra brand), so existing clients of the hosted product can switch by changing the base URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import msgspec

from redline.envelope.constant_time import same_secret
from redline.envelope.errors import InvalidArgument, Unauthenticated


class ApiKeyPrincipal(msgspec.Struct, frozen=True):
    """A caller authenticated with an API key and its auth token (or a user token of that key)."""

    workspace_id: str
    api_key: str
    # Set when the caller presented a user token (JWT) instead of the key's auth token.
    user_id: str | None = None
    # The resources a user token carries, as (type, id, organization id, role): they count as
    # grants of `user_id` for requests made with that token.
    grants: tuple[tuple[str, str, str, str], ...] = ()
    # When a user token stops being valid (epoch seconds): caches must not outlive it.
    expires_at: float | None = None


class WorkspacePrincipal(msgspec.Struct, frozen=True):
    workspace_id: str


class AuthVerifier(Protocol):
    """Checks credentials; raises `Unauthenticated` when they are wrong, unknown or revoked."""

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal: ...

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal: ...


class HeaderNames(msgspec.Struct, frozen=True):
    """Accepted spellings of each credential header, primary brand first."""

    api_key: tuple[str, ...]
    auth_token: tuple[str, ...]
    workspace_id: tuple[str, ...]
    workspace_token: tuple[str, ...]
    admin_token: tuple[str, ...]

    @classmethod
    def for_brands(cls, brands: list[str]) -> HeaderNames:
        words = [b.strip().lower() for b in brands if b.strip()] or ["redline"]

        def names(suffix: str) -> tuple[str, ...]:
            return tuple(f"x-{word}-{suffix}" for word in words)

        return cls(
            api_key=names("api-key"),
            auth_token=names("auth-token"),
            workspace_id=names("workspace-id"),
            # The hosted product's SDK sends the workspace auth token in the auth-token header on
            # workspace-level calls. The token is still only checked against the workspace's
            # own token, so this spelling opens nothing an API key's token would.
            workspace_token=names("workspace-auth-token") + names("auth-token"),
            admin_token=names("admin-token"),
        )


def header(headers: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        value = headers.get(name)
        if value is not None:
            return value
    return None


def required_header(headers: Mapping[str, str], names: tuple[str, ...]) -> str:
    value = header(headers, names)
    if value is None or not value.strip():
        raise InvalidArgument.field(
            f"headers.{names[0]}", f"Header {names[0]} is required.", code="missing_field"
        )
    try:
        # aiohttp keeps bytes that are not UTF-8 as surrogates, which verifiers cannot encode.
        value.encode()
    except UnicodeEncodeError:
        raise InvalidArgument.field(
            f"headers.{names[0]}", f"Header {names[0]} is not valid UTF-8."
        ) from None
    return value.strip()


class AdminPolicy(msgspec.Struct, frozen=True):
    """Who may create workspaces: holders of the operator token, or anyone when signup is open."""

    admin_token: str | None = None
    open_signup: bool = False

    def check(self, presented: str | None) -> None:
        if self.admin_token and presented is not None:
            if same_secret(presented, self.admin_token):
                return
            raise Unauthenticated("Invalid admin token.")
        if self.open_signup:
            return
        if presented is None:
            raise Unauthenticated("Workspace creation needs the operator's admin token.")
        raise Unauthenticated("Invalid admin token.")
