"""Signed, expiring links served by the memory service: the one-shot upload PUT and the downloads
of a source's original file and its Markdown rendering.

A link is `<path>?expires=<ms>&signature=<hex>`, the signature an HMAC-SHA256 over the purpose,
the id and the expiry under a key of its own derived from the server secret, so a link cannot be
stretched in time, pointed at another file or used for another purpose.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Literal

from redline.envelope.constant_time import same_secret

Purpose = Literal["upload", "original", "markdown"]

UPLOAD_PATH = "/v2/memory/knowledge/uploads/{upload_id}"
DOWNLOAD_PATH = "/v2/memory/knowledge/files/{source_id}/{purpose}"


class LinkSigner:
    def __init__(self, key: bytes) -> None:
        self._key = key

    def signature(self, purpose: Purpose, resource: str, expires_at: int) -> str:
        message = f"{purpose}\n{resource}\n{expires_at}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def verify(
        self, purpose: Purpose, resource: str, expires_at: int, signature: str, now_ms: int
    ) -> bool:
        if expires_at < now_ms:
            return False
        return same_secret(signature, self.signature(purpose, resource, expires_at))

    def query(self, purpose: Purpose, resource: str, expires_at: int) -> str:
        return f"expires={expires_at}&signature={self.signature(purpose, resource, expires_at)}"
