"""Opaque page tokens: the cursor is signed with the server's key and bound to one workspace,
so a token can be neither guessed, forged nor replayed against another workspace."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any, TypeVar

import msgspec
from aiohttp import web

from redline.envelope.errors import InvalidArgument

T = TypeVar("T")

_SIG_BYTES = 16


class _Signed(msgspec.Struct, array_like=True):
    workspace_id: str
    kind: str
    cursor: msgspec.Raw


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PageTokens:
    """Encode and verify page tokens. `kind` names the listing so tokens don't cross endpoints."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._key, payload, hashlib.sha256).digest()[:_SIG_BYTES]

    def encode(self, workspace_id: str, kind: str, cursor: Any) -> str:
        payload = msgspec.msgpack.encode(
            _Signed(workspace_id, kind, msgspec.Raw(msgspec.msgpack.encode(cursor)))
        )
        return _b64(self._sign(payload) + payload)

    def decode(self, workspace_id: str, kind: str, token: str, cursor_type: type[T]) -> T:
        invalid = InvalidArgument.field("data.pageToken", "Invalid page token.")
        try:
            raw = _unb64(token)
        except (ValueError, TypeError):
            raise invalid from None
        signature, payload = raw[:_SIG_BYTES], raw[_SIG_BYTES:]
        if len(signature) != _SIG_BYTES or not hmac.compare_digest(signature, self._sign(payload)):
            raise invalid
        try:
            signed = msgspec.msgpack.decode(payload, type=_Signed)
            if signed.workspace_id != workspace_id or signed.kind != kind:
                raise invalid
            return msgspec.msgpack.decode(signed.cursor, type=cursor_type)
        except msgspec.DecodeError:
            raise invalid from None


PAGE_TOKENS = web.AppKey("redline_page_tokens", PageTokens)
