"""Signed links: valid only for their purpose, resource and time."""

from __future__ import annotations

from redline.memory.knowledge.links import LinkSigner

SIGNER = LinkSigner(b"k" * 32)


def test_a_link_verifies_until_it_expires() -> None:
    signature = SIGNER.signature("upload", "u1", 2_000)
    assert SIGNER.verify("upload", "u1", 2_000, signature, now_ms=1_999)
    assert not SIGNER.verify("upload", "u1", 2_000, signature, now_ms=2_001)


def test_a_signature_does_not_carry_over_to_another_purpose_resource_or_expiry() -> None:
    signature = SIGNER.signature("original", "key/src_1", 2_000)
    assert not SIGNER.verify("markdown", "key/src_1", 2_000, signature, now_ms=0)
    assert not SIGNER.verify("original", "key/src_2", 2_000, signature, now_ms=0)
    assert not SIGNER.verify("original", "key/src_1", 9_999, signature, now_ms=0)
    assert not LinkSigner(b"x" * 32).verify("original", "key/src_1", 2_000, signature, now_ms=0)
