"""Signatures of permission decisions (/v2/auth/generate_signature).

A provider may sign its answer: it sends the decisions to generate_signature and returns the
signature beside them. The signature is the hex HMAC-SHA256 of the decisions' canonical JSON
(`userId`, `resourceId`, `type`, `hasAccess`, then `accessRole` and `expiresAt` when set, in that
order, entries in the order given) under a key derived from the server secret for the API key, so
it holds for that key only. Redline checks the signature of an answer that carries one; an answer
without one is taken as it is (the hosted product no longer requires it).
"""

from __future__ import annotations

import hashlib
import hmac

import msgspec

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.constant_time import same_secret
from redline.identity.caller import require_key_caller
from redline.identity.provider import models
from redline.runtime.keys import derive_key

_PURPOSE = "identity.permission-signature:"


class SignedPermission(msgspec.Struct, frozen=True, omit_defaults=True):
    """The signed form of one decision: fixed fields in a fixed order."""

    userId: str
    resourceId: str
    type: str
    hasAccess: bool
    accessRole: str | None = None
    expiresAt: int | None = None


class PermissionSigner:
    def __init__(self, secret_key: bytes) -> None:
        self._secret_key = secret_key

    def _digest(self, api_key: str, permissions: list[SignedPermission]) -> str:
        key = derive_key(self._secret_key, _PURPOSE + api_key)
        return hmac.new(key, msgspec.json.encode(permissions), hashlib.sha256).hexdigest()

    def signature(self, api_key: str, permissions: list[SignedPermission]) -> str:
        return self._digest(api_key, permissions)

    def verifies(self, api_key: str, permissions: list[SignedPermission], signature: str) -> bool:
        return same_secret(signature, self._digest(api_key, permissions))

    async def sign(
        self, caller: ApiKeyPrincipal, request: models.GenerateSignature
    ) -> models.Signature:
        require_key_caller(caller)
        signed = [
            msgspec.convert(msgspec.to_builtins(p), SignedPermission) for p in request.permissions
        ]
        return models.Signature(signature=self.signature(caller.api_key, signed))
