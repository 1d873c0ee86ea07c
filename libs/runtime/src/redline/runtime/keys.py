"""Keys derived from the one server secret, one per purpose, so no two uses share a key."""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from redline.envelope.pagination import PageTokens


def derive_key(master: bytes, purpose: str, length: int = 32) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=purpose.encode()).derive(
        master
    )


def page_tokens_for(master: bytes) -> PageTokens:
    return PageTokens(derive_key(master, "page-tokens"))
