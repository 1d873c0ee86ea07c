"""Request and reply bodies of the internal RPC subjects (see `subjects`)."""

from __future__ import annotations

from typing import Any

import msgspec


class RpcError(msgspec.Struct, frozen=True):
    """An RPC failure, carried with the envelope's status code so the caller re-raises it."""

    code: str
    message: str
    details: dict[str, Any] | None = None


class VerifyApiKey(msgspec.Struct, tag="apiKey", frozen=True):
    apiKey: str
    token: str


class VerifyWorkspace(msgspec.Struct, tag="workspace", frozen=True):
    workspaceId: str
    token: str


AuthVerifyRequest = VerifyApiKey | VerifyWorkspace


class AuthVerified(msgspec.Struct, frozen=True):
    workspaceId: str
    apiKey: str | None = None
    userId: str | None = None
