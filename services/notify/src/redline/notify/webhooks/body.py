"""The bytes a receiver gets: the payload's JSON as it is, base64-encoded (`encodeData`) or
encrypted for the receiver's public key (`encryptData`, which wins when both are on)."""

from __future__ import annotations

import base64
import functools
from typing import Protocol

import msgspec
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from redline.webhooks import encrypt_payload, load_public_key


class EncodedPayload(msgspec.Struct, frozen=True):
    encodedPayload: str


class UnusableKey(ValueError):
    """`encryptData` is on but `publicKey` cannot encrypt: nothing is sent in the clear."""


class BodySettings(Protocol):
    """The settings that shape a body: basic and advanced webhook settings both have them."""

    @property
    def encryptData(self) -> bool: ...
    @property
    def encodeData(self) -> bool: ...
    @property
    def publicKey(self) -> str: ...


def wire_body(payload_json: bytes, config: BodySettings) -> bytes:
    if config.encryptData:
        return msgspec.json.encode(encrypt_payload(payload_json, _public_key(config.publicKey)))
    if config.encodeData:
        return msgspec.json.encode(EncodedPayload(base64.b64encode(payload_json).decode()))
    return payload_json


@functools.lru_cache(maxsize=256)
def _public_key(text: str) -> RSAPublicKey:
    # Parsing a key costs more than encrypting one payload; keys change rarely.
    if not text:
        raise UnusableKey("encryptData is on but no publicKey is configured")
    try:
        return load_public_key(text)
    except ValueError as exc:
        raise UnusableKey(str(exc)) from None
