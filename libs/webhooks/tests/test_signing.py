"""Standard Webhooks signatures: the header a receiver checks with any of that specification's
libraries, and verification that accepts only a matching `v1` entry."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from redline.webhooks import secret_from_text, sign, verify

# The test vector published with the Standard Webhooks specification.
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SPEC_TIMESTAMP = 1614265330
SPEC_BODY = b'{"test": 2432232314}'
SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

SECRET = b"a signing key of thirty-two byte"
BODY = '{"event":"comment.created","text":"héllo"}'.encode()


def reference_signature(secret: bytes, message_id: str, timestamp: int, body: bytes) -> str:
    """The signature as the specification defines it, computed here independently."""
    signed = message_id.encode() + b"." + str(timestamp).encode() + b"." + body
    return "v1," + base64.b64encode(hmac.new(secret, signed, hashlib.sha256).digest()).decode()


def test_the_specification_vector_is_reproduced() -> None:
    signature = sign(secret_from_text(SPEC_SECRET), SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY)

    assert signature == SPEC_SIGNATURE


def test_the_signature_is_hmac_sha256_over_id_timestamp_and_body() -> None:
    signature = sign(SECRET, "msg_2", 1700000000, BODY)

    assert signature == reference_signature(SECRET, "msg_2", 1700000000, BODY)


def test_a_whsec_secret_is_its_base64_key_and_any_other_text_its_utf8_bytes() -> None:
    key = bytes(range(32))

    assert secret_from_text("whsec_" + base64.b64encode(key).decode()) == key
    assert secret_from_text("plain-secret-é") == "plain-secret-é".encode()


def test_a_whsec_secret_that_is_not_base64_is_refused() -> None:
    with pytest.raises(ValueError, match="base64"):
        secret_from_text("whsec_not base64!")


def test_verify_accepts_the_matching_signature() -> None:
    assert verify(secret_from_text(SPEC_SECRET), SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY, SPEC_SIGNATURE)


def test_verify_accepts_any_matching_entry_during_a_rotation() -> None:
    old = sign(b"the previous key", "msg_3", 1700000000, BODY)
    new = sign(SECRET, "msg_3", 1700000000, BODY)

    assert verify(SECRET, "msg_3", 1700000000, BODY, f"{old} {new}")
    assert verify(SECRET, "msg_3", 1700000000, BODY, f"{new} {old}")


@pytest.mark.parametrize(
    ("message_id", "timestamp", "body", "secret"),
    [
        ("msg_3", 1700000000, BODY + b" ", SECRET),
        ("msg_4", 1700000000, BODY, SECRET),
        ("msg_3", 1700000001, BODY, SECRET),
        ("msg_3", 1700000000, BODY, b"another key"),
    ],
)
def test_verify_refuses_any_change(
    message_id: str, timestamp: int, body: bytes, secret: bytes
) -> None:
    header = sign(SECRET, "msg_3", 1700000000, BODY)

    assert not verify(secret, message_id, timestamp, body, header)


GOOD = reference_signature(SECRET, "msg_5", 1700000000, BODY)


@pytest.mark.parametrize(
    "header",
    [
        "",
        GOOD.replace("v1,", "v2,"),
        GOOD.removeprefix("v1,"),
        GOOD[:-2],
        "v1,ünïcode",
        "v1a," + GOOD.removeprefix("v1,"),
        GOOD.upper(),
    ],
)
def test_verify_refuses_headers_without_a_matching_v1_entry(header: str) -> None:
    assert verify(SECRET, "msg_5", 1700000000, BODY, GOOD)

    assert not verify(SECRET, "msg_5", 1700000000, BODY, header)
