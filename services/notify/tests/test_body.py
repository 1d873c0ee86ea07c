"""The bytes a receiver gets (plain, encoded, encrypted) and the deliveries one event makes."""

from __future__ import annotations

import base64
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.padding import MGF1, OAEP
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from redline.notify.webhooks.body import UnusableKey, wire_body
from redline.notify.webhooks.enqueue import build_deliveries
from redline.proto.events import CommentAdded, StatusChanged, WebhookServiceConfigState
from redline.testing.annotations import annotation, comment

PAYLOAD = msgspec.json.encode({"webhookId": "msg_1", "commentText": "hello", "n": [1, 2, 3]})
RAW_URL = "https://raw.example.com/hook"
PROCESSED_URL = "https://processed.example.com/hook"
SECRET_TEXT = "words only the customer may read"


@pytest.fixture(scope="module")
def private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def der_base64(key: rsa.RSAPrivateKey) -> str:
    der = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(der).decode()


def pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def decrypt(body: bytes, key: rsa.RSAPrivateKey) -> bytes:
    """What a receiver does with an encrypted body, using nothing but `cryptography`."""
    fields = msgspec.json.decode(body)
    assert set(fields) == {"encryptedData", "encryptedKey", "iv"}
    aes_key = key.decrypt(
        base64.b64decode(fields["encryptedKey"]),
        OAEP(mgf=MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None),
    )
    iv = base64.b64decode(fields["iv"])
    assert len(aes_key) == 32
    assert len(iv) == 16
    decryptor = Cipher(algorithms.AES(aes_key), modes.CBC(iv)).decryptor()
    padded = decryptor.update(base64.b64decode(fields["encryptedData"])) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


def test_a_plain_body_is_the_payload_json_itself() -> None:
    assert wire_body(PAYLOAD, WebhookServiceConfigState()) == PAYLOAD


def test_encode_data_sends_base64_of_the_json() -> None:
    body = wire_body(PAYLOAD, WebhookServiceConfigState(encodeData=True))

    fields = msgspec.json.decode(body)
    assert set(fields) == {"encodedPayload"}
    assert base64.b64decode(fields["encodedPayload"], validate=True) == PAYLOAD


def test_encode_data_ignores_a_public_key_it_does_not_use() -> None:
    body = wire_body(PAYLOAD, WebhookServiceConfigState(encodeData=True, publicKey="nonsense"))

    assert base64.b64decode(msgspec.json.decode(body)["encodedPayload"]) == PAYLOAD


@pytest.mark.parametrize("form", ["der", "pem"])
def test_encrypt_data_decrypts_with_the_private_key(
    private_key: rsa.RSAPrivateKey, form: str
) -> None:
    public = der_base64(private_key) if form == "der" else pem(private_key)

    body = wire_body(PAYLOAD, WebhookServiceConfigState(encryptData=True, publicKey=public))

    assert PAYLOAD not in body
    assert decrypt(body, private_key) == PAYLOAD


def test_each_encryption_uses_a_new_key_and_iv(private_key: rsa.RSAPrivateKey) -> None:
    config = WebhookServiceConfigState(encryptData=True, publicKey=der_base64(private_key))

    first = msgspec.json.decode(wire_body(PAYLOAD, config))
    second = msgspec.json.decode(wire_body(PAYLOAD, config))

    assert first["iv"] != second["iv"]
    assert first["encryptedKey"] != second["encryptedKey"]
    assert first["encryptedData"] != second["encryptedData"]


def test_encryption_wins_when_encoding_is_on_too(private_key: rsa.RSAPrivateKey) -> None:
    config = WebhookServiceConfigState(
        encodeData=True, encryptData=True, publicKey=der_base64(private_key)
    )

    body = wire_body(PAYLOAD, config)

    # The plaintext is the payload's JSON, not its encoded form.
    assert decrypt(body, private_key) == PAYLOAD


# Parses as RSA, but OpenSSL refuses to encrypt with it.
EVEN_MODULUS_KEY = (
    rsa.RSAPublicNumbers(65537, 1 << 2048)
    .public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode()
)


def unusable_keys() -> list[Any]:
    # Too short on purpose: such a key must be refused.
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)  # noqa: S505
    curve = ec.generate_private_key(ec.SECP256R1())
    curve_der = curve.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return [
        pytest.param("", id="empty"),
        pytest.param("   ", id="blank"),
        pytest.param("not a key at all", id="garbage"),
        pytest.param(base64.b64encode(b"not der").decode(), id="base64-not-der"),
        pytest.param("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", id="bad-pem"),
        pytest.param(der_base64(small), id="rsa-1024"),
        pytest.param(base64.b64encode(curve_der).decode(), id="not-rsa"),
        pytest.param(EVEN_MODULUS_KEY, id="rsa-that-cannot-encrypt"),
    ]


@pytest.mark.parametrize("public_key", unusable_keys())
def test_encrypt_data_with_an_unusable_key_raises(public_key: str) -> None:
    config = WebhookServiceConfigState(encryptData=True, encodeData=True, publicKey=public_key)

    with pytest.raises(UnusableKey):
        wire_body(PAYLOAD, config)


def event(**extra: Any) -> CommentAdded:
    fields: dict[str, Any] = {
        "workspaceId": "ws1",
        "apiKey": "key1",
        "organizationId": "org1",
        "documentId": "doc1",
        "annotationId": "a1",
        "annotation": annotation(comments=[]),
        "commentId": 7,
        "comment": comment(7, commentText=SECRET_TEXT),
    }
    return CommentAdded(**(fields | extra))


def settings(**extra: Any) -> WebhookServiceConfigState:
    fields: dict[str, Any] = {
        "rawNotificationUrl": RAW_URL,
        "processedNotificationUrl": PROCESSED_URL,
    }
    return WebhookServiceConfigState(**(fields | extra))


def test_one_delivery_per_configured_url() -> None:
    added = event()

    raw, processed = build_deliveries(added, settings())

    assert (raw.target, raw.url) == ("raw", RAW_URL)
    assert (processed.target, processed.url) == ("processed", PROCESSED_URL)
    for delivery in (raw, processed):
        assert delivery.workspace_id == "ws1"
        assert delivery.api_key == "key1"
        assert delivery.kind == "basic"
        assert delivery.event_id == added.id
        assert delivery.event_type == "comment.add"
        assert delivery.ordering_key == "key1/org1/doc1"
        assert delivery.failed_error is None
        # The payload names the delivery it came in.
        assert msgspec.json.decode(delivery.body)["webhookId"] == delivery.webhook_id
    assert msgspec.json.decode(raw.body)["targetComment"]["commentText"] == SECRET_TEXT
    assert msgspec.json.decode(processed.body)["commentText"] == SECRET_TEXT


@pytest.mark.parametrize(
    ("raw_url", "processed_url", "targets"),
    [
        (RAW_URL, "", ["raw"]),
        ("", PROCESSED_URL, ["processed"]),
        ("", "", []),
    ],
)
def test_no_delivery_for_a_url_not_configured(
    raw_url: str, processed_url: str, targets: list[str]
) -> None:
    config = settings(rawNotificationUrl=raw_url, processedNotificationUrl=processed_url)

    assert [d.target for d in build_deliveries(event(), config)] == targets


def test_webhook_ids_are_stable_per_event_and_target() -> None:
    first, second = event(), event()

    again = [d.webhook_id for d in build_deliveries(first, settings(encodeData=True))]
    ids = [d.webhook_id for d in build_deliveries(first, settings())]
    other = [d.webhook_id for d in build_deliveries(second, settings())]

    assert ids == again
    assert len(set(ids)) == 2
    assert not set(ids) & set(other)


def test_the_ordering_key_is_the_document_of_the_organization_of_the_key() -> None:
    events = (
        event(),
        event(),
        event(documentId="doc2"),
        event(organizationId="org2"),
        event(apiKey="key2"),
    )
    keys = {d.ordering_key for e in events for d in build_deliveries(e, settings())}

    assert keys == {"key1/org1/doc1", "key1/org1/doc2", "key1/org2/doc1", "key2/org1/doc1"}


def test_deliveries_use_the_configured_body_form(private_key: rsa.RSAPrivateKey) -> None:
    encoded = build_deliveries(event(), settings(encodeData=True))
    encrypted = build_deliveries(
        event(), settings(encryptData=True, publicKey=der_base64(private_key))
    )

    for delivery in encoded:
        inner = base64.b64decode(msgspec.json.decode(delivery.body)["encodedPayload"])
        assert msgspec.json.decode(inner)["webhookId"] == delivery.webhook_id
    for delivery in encrypted:
        assert SECRET_TEXT.encode() not in delivery.body
        inner = decrypt(delivery.body, private_key)
        assert msgspec.json.decode(inner)["webhookId"] == delivery.webhook_id


def test_data_protection_applies_to_both_targets() -> None:
    for delivery in build_deliveries(event(), settings(enableDataProtection=True)):
        assert SECRET_TEXT.encode() not in delivery.body
        assert msgspec.json.decode(delivery.body)["webhookId"] == delivery.webhook_id


@pytest.mark.parametrize("public_key", ["", "garbage", EVEN_MODULUS_KEY])
def test_an_unusable_key_stores_failed_deliveries_without_plaintext(public_key: str) -> None:
    status = StatusChanged(
        workspaceId="ws1",
        apiKey="key1",
        organizationId="org1",
        documentId="doc1",
        annotationId="a1",
        annotation=annotation(comments=[comment(1, commentText=SECRET_TEXT)]),
    )

    deliveries = build_deliveries(
        status, settings(encryptData=True, encodeData=True, publicKey=public_key)
    )

    assert [d.target for d in deliveries] == ["raw", "processed"]
    for delivery in deliveries:
        assert delivery.body == b""
        assert delivery.failed_error is not None
        assert "publicKey" in delivery.failed_error
        assert SECRET_TEXT not in delivery.failed_error
        assert delivery.event_type == "comment_annotation.status_change"
