"""Delivering webhooks safely: the address guard, a guarded HTTP client, payload encryption and
signatures."""

from redline.webhooks.client import (
    HEADER_VALUE_PATTERN,
    Outcome,
    Reply,
    WebhookClient,
    is_header_value,
)
from redline.webhooks.crypto import EncryptedPayload, encrypt_payload, load_public_key
from redline.webhooks.guard import AddressGuard, BlockedTarget, GuardedResolver
from redline.webhooks.signing import secret_from_text, sign, verify

__all__ = [
    "HEADER_VALUE_PATTERN",
    "AddressGuard",
    "BlockedTarget",
    "EncryptedPayload",
    "GuardedResolver",
    "Outcome",
    "Reply",
    "WebhookClient",
    "encrypt_payload",
    "is_header_value",
    "load_public_key",
    "secret_from_text",
    "sign",
    "verify",
]
