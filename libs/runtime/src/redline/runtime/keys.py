"""Keys derived from the one server secret, one per purpose, so no two uses share a key."""

from __future__ import annotations

import secrets

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from redline.envelope.pagination import PageTokens


def derive_key(master: bytes, purpose: str, length: int = 32) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=purpose.encode()).derive(
        master
    )


def page_tokens_for(master: bytes) -> PageTokens:
    return PageTokens(derive_key(master, "page-tokens"))


class Sealer:
    """Secrets the server must read back (tokens it returns, secrets it signs with), stored
    encrypted with AES-GCM and bound to the record they belong to: a sealed value copied to
    another record does not open."""

    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)

    def seal(self, secret: str, bound_to: str) -> bytes:
        nonce = secrets.token_bytes(12)
        return nonce + self._aead.encrypt(nonce, secret.encode(), bound_to.encode())

    def unseal(self, sealed: bytes, bound_to: str) -> str:
        return self._aead.decrypt(sealed[:12], sealed[12:], bound_to.encode()).decode()
