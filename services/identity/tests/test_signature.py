"""Signatures of permission decisions: stable, bound to one API key, and sensitive to every
signed field and to order."""

from __future__ import annotations

import re

from redline.identity.provider.signature import PermissionSigner, SignedPermission

SECRET = b"s" * 32


def decision(**changes: object) -> SignedPermission:
    fields: dict[str, object] = {
        "userId": "u",
        "resourceId": "d",
        "type": "document",
        "hasAccess": True,
        **changes,
    }
    return SignedPermission(**fields)  # type: ignore[arg-type]


def test_a_signature_is_hex_and_verifies_for_its_key_only() -> None:
    signer = PermissionSigner(SECRET)
    decisions = [decision(accessRole="viewer", expiresAt=1_759_745_729_823)]

    signature = signer.signature("key-a", decisions)

    assert re.fullmatch(r"[0-9a-f]{64}", signature)
    assert signer.verifies("key-a", decisions, signature)
    assert not signer.verifies("key-b", decisions, signature)
    assert not PermissionSigner(b"t" * 32).verifies("key-a", decisions, signature)


def test_every_signed_field_and_the_order_change_the_signature() -> None:
    signer = PermissionSigner(SECRET)
    base = [decision(), decision(resourceId="e")]
    variants = [
        [decision(hasAccess=False), base[1]],
        [decision(accessRole="editor"), base[1]],
        [decision(expiresAt=1), base[1]],
        [decision(type="folder"), base[1]],
        [decision(userId="v"), base[1]],
        base[::-1],
    ]

    signature = signer.signature("k", base)

    assert all(not signer.verifies("k", v, signature) for v in variants)
