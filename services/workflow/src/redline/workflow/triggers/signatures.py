"""Checking an inbound delivery's HMAC signature, in the three schemes providers use:

- `body`: the HMAC of the raw body alone, hex (velt, github, vercel, custom). Nothing in it dates
  the delivery, so a copy of it verifies for ever: the service then tells a replay from a new
  delivery only by what was signed (see `Verified.digest`).
- `stripe`: `Stripe-Signature: t=<unix s>,v1=<hex>[,v1=<hex>…]`, the HMAC-SHA256 of
  `<t>.<body>` with the endpoint secret as given (`whsec_…` included).
- `standard-webhooks`: `webhook-id`, `webhook-timestamp` (unix s) and
  `webhook-signature: v1,<base64>[ v1,<base64>…]`, the HMAC-SHA256 of `<id>.<timestamp>.<body>`
  keyed with the base64 secret after its `whsec_` prefix.

A timestamped delivery verifies only within `window_s` of this server's clock, either way (a
clock ahead of ours is no better than one behind). Every malformed header is simply "not
authentic": nothing here raises on input.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from redline.envelope.constant_time import same_secret

Scheme = Literal["body", "stripe", "standard-webhooks"]
Algorithm = Literal["sha1", "sha256"]

# Unix seconds as providers send them: ASCII digits only (int() also takes signs, underscores
# and the digits of other scripts).
_SECONDS = re.compile(r"[0-9]{1,12}")
# Bounds what a header may make us compute: a real one carries one or two signatures.
_MAX_SIGNATURES = 8


@dataclass(frozen=True)
class Verified:
    """A delivery that carries the trigger's secret. `digest` is the SHA-256 of the content the
    signature covers: the same for a copy of the delivery however it is resent, and different
    for any new delivery of a timestamped scheme (its time is part of the content). None for a
    bearer secret, which signs nothing (and whoever holds a copy of the request holds it)."""

    digest: str | None


@dataclass(frozen=True)
class Signed:
    """What one delivery presents: the signature header's value, and the headers a scheme
    reads beside it."""

    scheme: Scheme
    algorithm: Algorithm
    prefix: str
    signature: str | None
    headers: Mapping[str, str]


def verify(
    signed: Signed, secret: str, body: bytes, *, now_s: float, window_s: float
) -> Verified | None:
    if signed.signature is None:
        return None
    if signed.scheme == "stripe":
        return _stripe(signed.signature, secret, body, now_s, window_s)
    if signed.scheme == "standard-webhooks":
        return _standard(signed, secret, body, now_s, window_s)
    return _body(signed, secret, body)


def _body(signed: Signed, secret: str, body: bytes) -> Verified | None:
    signature = signed.signature
    if signature is None or not signature.startswith(signed.prefix):
        return None
    expected = hmac.new(secret.encode(), body, signed.algorithm).hexdigest().encode()
    # Hex digits in either case are the same signature.
    if not same_secret(signature[len(signed.prefix) :].strip().lower(), expected):
        return None
    return Verified(hashlib.sha256(body).hexdigest())


def _stripe(
    header: str, secret: str, body: bytes, now_s: float, window_s: float
) -> Verified | None:
    timestamps: list[str] = []
    signatures: list[str] = []
    for item in header.split(",")[: 2 * _MAX_SIGNATURES]:
        name, _, value = item.strip().partition("=")
        if name == "t":
            timestamps.append(value.strip())
        elif name == "v1":
            signatures.append(value.strip().lower())
    if len(timestamps) != 1 or not _fresh(timestamps[0], now_s, window_s):
        return None
    content = timestamps[0].encode() + b"." + body
    expected = hmac.new(secret.encode(), content, hashlib.sha256).hexdigest().encode()
    return _any_matches(signatures, expected, content)


def _standard(
    signed: Signed, secret: str, body: bytes, now_s: float, window_s: float
) -> Verified | None:
    delivery_id = signed.headers.get("webhook-id", "").strip()
    timestamp = signed.headers.get("webhook-timestamp", "").strip()
    key = _standard_key(secret)
    if not delivery_id or key is None or not _fresh(timestamp, now_s, window_s):
        return None
    content = f"{delivery_id}.{timestamp}.".encode(errors="surrogateescape") + body
    expected = base64.b64encode(hmac.new(key, content, hashlib.sha256).digest())
    presented = [
        value
        for version, _, value in (
            item.partition(",") for item in (signed.signature or "").split()[:_MAX_SIGNATURES]
        )
        if version == "v1"
    ]
    return _any_matches(presented, expected, content)


def _standard_key(secret: str) -> bytes | None:
    try:
        return base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except (binascii.Error, ValueError):
        return None


def _fresh(timestamp: str, now_s: float, window_s: float) -> bool:
    if not _SECONDS.fullmatch(timestamp):
        return False
    return abs(now_s - int(timestamp)) <= window_s


def _any_matches(presented: Sequence[str], expected: bytes, content: bytes) -> Verified | None:
    # Every candidate is compared (no early exit), each in constant time.
    matched = [same_secret(candidate, expected) for candidate in presented]
    return Verified(hashlib.sha256(content).hexdigest()) if any(matched) else None
