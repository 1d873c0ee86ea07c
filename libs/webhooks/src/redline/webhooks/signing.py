"""Standard Webhooks signatures (https://www.standardwebhooks.com): an HMAC-SHA256 over the
message id, the timestamp and the body, so a receiver can tell the request came from us and was
not replayed with another id or time.

The signature header may list several space-separated signatures (during a secret rotation, one
per secret); a receiver accepts the request when any `v1` entry matches. Checking that the
timestamp is recent is left to the caller, who owns the clock.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

SECRET_PREFIX = "whsec_"  # noqa: S105 - how secrets are marked, not a secret


def secret_from_text(text: str) -> bytes:
    """The signing key a secret's text stands for: base64 after `whsec_`, else the text's UTF-8
    bytes. Raises ValueError for a `whsec_` secret that is not base64."""
    if text.startswith(SECRET_PREFIX):
        try:
            return base64.b64decode(text.removeprefix(SECRET_PREFIX), validate=True)
        except binascii.Error as exc:
            raise ValueError("a whsec_ secret must be base64 after the prefix") from exc
    return text.encode("utf-8")


def sign(secret: bytes, message_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` header value for one message: `v1,<base64 HMAC-SHA256>`."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret, signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify(
    secret: bytes, message_id: str, timestamp: int, body: bytes, signature_header: str
) -> bool:
    """Whether any `v1` signature in `signature_header` is the one `secret` gives this message."""
    expected = sign(secret, message_id, timestamp, body).encode("ascii")
    # Every entry is compared, without stopping at a match, so timing says nothing about which.
    matched = False
    for entry in signature_header.split(" "):
        if entry.startswith("v1,"):
            matched |= hmac.compare_digest(expected, entry.encode(errors="surrogateescape"))
    return matched
