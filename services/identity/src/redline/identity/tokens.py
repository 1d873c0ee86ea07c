"""Credentials: random tokens, their digests for checking, and sealed copies for reading back.

A token is 256 random bits. Checks compare SHA-256 digests in constant time. The API returns
tokens to their owners (workspace/get, authtokens/get), so each is also stored sealed with AES-GCM
under a key derived from the server secret, bound to the record it belongs to.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string

from redline.runtime.keys import Sealer

__all__ = ["Sealer", "digest", "matches", "new_id", "new_token"]

_ID_ALPHABET = string.ascii_letters + string.digits


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_id(length: int = 20) -> str:
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def matches(token: str, stored_digests: list[bytes]) -> bool:
    """Constant-time check of `token` against each stored digest (no early exit)."""
    presented = digest(token)
    found = False
    for stored in stored_digests:
        found |= hmac.compare_digest(presented, stored)
    return found
