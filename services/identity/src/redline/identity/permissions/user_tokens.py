"""User tokens: JWTs that let a browser call Redline as one user of an API key.

`/v2/auth/generate_token` issues them; they are presented as `x-redline-auth-token` beside the API
key. Each is signed with HS256 under a key derived from the server secret for its workspace, so a
token of one workspace never verifies in another, and nothing per token is stored. Claims:

- `sub` the user id, `ws` the workspace id, `key` the API key it was issued for;
- `res` the resources it carries (`type`, `id`, `organizationId`, `accessRole`, `expiresAt`?),
  which count as grants of the user for requests made with the token;
- `iat`, `exp` (seconds), and the profile: `name`, `email`, `isAdmin`, `organizationId`.

A token stops working at `exp`, when presented with another API key, and when the API key's auth
token is reset after it was issued (to the second).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from datetime import datetime

import jwt
import msgspec

from redline.envelope.auth import ApiKeyPrincipal
from redline.identity import errors
from redline.runtime.keys import derive_key

ALGORITHM = "HS256"
_KEY_PURPOSE = "identity.user-token:"
# Derived keys are cached per workspace; past this many the cache starts over.
_MAX_CACHED_KEYS = 10_000


class TokenResource(msgspec.Struct, frozen=True, omit_defaults=True):
    type: str
    id: str
    organizationId: str
    accessRole: str
    expiresAt: int | None = None  # seconds; the grant stops counting then


class UserClaims(msgspec.Struct, frozen=True, omit_defaults=True):
    sub: str
    ws: str
    key: str
    iat: int
    exp: int
    res: list[TokenResource]
    name: str | None = None
    email: str | None = None
    isAdmin: bool | None = None
    organizationId: str | None = None


def looks_like_jwt(token: str) -> bool:
    """Auth tokens are URL-safe base64 without dots; a JWT is three dot-separated parts whose
    header is a JSON object (base64 of `{"` is `eyJ`)."""
    return token.startswith("eyJ") and token.count(".") == 2


class UserTokens:
    def __init__(
        self, secret_key: bytes, ttl_s: int, clock: Callable[[], float] = time.time
    ) -> None:
        self._secret_key = secret_key
        self._ttl_s = ttl_s
        self._clock = clock
        self._keys: dict[str, bytes] = {}

    def _key(self, workspace_id: str) -> bytes:
        key = self._keys.get(workspace_id)
        if key is None:
            if len(self._keys) >= _MAX_CACHED_KEYS:
                self._keys.clear()
            key = self._keys[workspace_id] = derive_key(
                self._secret_key, _KEY_PURPOSE + workspace_id
            )
        return key

    def issue(
        self,
        *,
        workspace_id: str,
        api_key: str,
        user_id: str,
        resources: list[TokenResource],
        name: str | None = None,
        email: str | None = None,
        is_admin: bool | None = None,
        organization_id: str | None = None,
    ) -> str:
        now = self._clock()
        claims = UserClaims(
            sub=user_id,
            ws=workspace_id,
            key=api_key,
            iat=int(now),
            # Rounded up, so a token lives at least the configured time.
            exp=math.ceil(now + self._ttl_s),
            res=resources,
            name=name,
            email=email,
            isAdmin=is_admin,
            organizationId=organization_id,
        )
        return jwt.encode(msgspec.to_builtins(claims), self._key(workspace_id), ALGORITHM)

    def verify(
        self,
        token: str,
        *,
        workspace_id: str,
        api_key: str,
        not_before: datetime | None = None,
    ) -> UserClaims:
        """The token's claims if it is genuine, live and issued for `api_key`; raises
        UNAUTHENTICATED otherwise. `not_before`: tokens issued before then are revoked."""
        try:
            payload = jwt.decode(
                token,
                self._key(workspace_id),
                algorithms=[ALGORITHM],
                options={"require": ["exp", "iat", "sub"]},
            )
            claims = msgspec.convert(payload, UserClaims)
        except (jwt.PyJWTError, msgspec.ValidationError):
            raise errors.bad_api_credentials() from None
        if claims.ws != workspace_id or claims.key != api_key:
            raise errors.bad_api_credentials()
        if claims.exp <= self._clock():
            raise errors.bad_api_credentials()
        if not_before is not None and claims.iat < int(not_before.timestamp()):
            raise errors.bad_api_credentials()
        return claims

    def principal(self, claims: UserClaims) -> ApiKeyPrincipal:
        """The caller a verified token stands for. Resources whose own `expiresAt` has passed are
        left out; the principal expires when the token or its next resource does."""
        now = self._clock()
        live = [r for r in claims.res if r.expiresAt is None or r.expiresAt > now]
        expires_at = float(min([claims.exp, *(r.expiresAt for r in live if r.expiresAt)]))
        return ApiKeyPrincipal(
            workspace_id=claims.ws,
            api_key=claims.key,
            user_id=claims.sub,
            grants=tuple((r.type, r.id, r.organizationId, r.accessRole) for r in live),
            expires_at=expires_at,
        )
