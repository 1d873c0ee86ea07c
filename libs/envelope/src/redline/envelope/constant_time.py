"""Comparing secrets without leaking, through timing or an exception, how close a guess came.

`hmac.compare_digest` takes `str` only when both sides are ASCII and raises `TypeError`
otherwise: a stranger who sends `é` as a signature would get an internal error. Everything a
client presents is therefore compared as bytes. aiohttp keeps header and query bytes that are not
UTF-8 as surrogates, which `surrogateescape` turns back into the bytes sent, so no input raises.
"""

from __future__ import annotations

import hmac


def as_bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode(errors="surrogateescape")


def same_secret(presented: str | bytes, expected: str | bytes) -> bool:
    """Whether `presented` is `expected`, in time that depends only on their lengths."""
    return hmac.compare_digest(as_bytes(presented), as_bytes(expected))
