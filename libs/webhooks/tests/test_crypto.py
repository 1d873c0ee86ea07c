"""Payload encryption: a receiver holding the private key recovers the exact payload with
standard primitives (RSA-OAEP-SHA256 for the key, AES-256-CBC with PKCS#7 for the data)."""

from __future__ import annotations

import base64

import msgspec
import pytest
from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.padding import MGF1, OAEP
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from redline.webhooks import EncryptedPayload, encrypt_payload, load_public_key

PAYLOAD = '{"event":"comment.created","text":"naïve café ✓"}'.encode()


@pytest.fixture(scope="module")
def private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem_of(key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def der_base64_of(key: rsa.RSAPrivateKey) -> str:
    der = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(der).decode()


def unwrap_key(encrypted: EncryptedPayload, private_key: rsa.RSAPrivateKey) -> bytes:
    return private_key.decrypt(
        base64.b64decode(encrypted.encryptedKey),
        OAEP(mgf=MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None),
    )


def decrypt(encrypted: EncryptedPayload, private_key: rsa.RSAPrivateKey) -> bytes:
    key = unwrap_key(encrypted, private_key)
    iv = base64.b64decode(encrypted.iv)
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    padded = decryptor.update(base64.b64decode(encrypted.encryptedData)) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


@pytest.mark.parametrize("form", ["pem", "der_base64"])
def test_the_receiver_decrypts_the_exact_payload(form: str, private_key: rsa.RSAPrivateKey) -> None:
    text = pem_of(private_key) if form == "pem" else der_base64_of(private_key)

    encrypted = encrypt_payload(PAYLOAD, load_public_key(text))

    assert decrypt(encrypted, private_key) == PAYLOAD


@pytest.mark.parametrize("size", [0, 15, 16, 17, 100_000])
def test_payloads_of_any_length_round_trip(size: int, private_key: rsa.RSAPrivateKey) -> None:
    plaintext = bytes(i % 251 for i in range(size))

    encrypted = encrypt_payload(plaintext, private_key.public_key())

    assert decrypt(encrypted, private_key) == plaintext


def test_each_payload_gets_a_fresh_aes_256_key_and_iv(private_key: rsa.RSAPrivateKey) -> None:
    first = encrypt_payload(PAYLOAD, private_key.public_key())
    second = encrypt_payload(PAYLOAD, private_key.public_key())

    first_key, second_key = unwrap_key(first, private_key), unwrap_key(second, private_key)
    assert (len(first_key), len(second_key)) == (32, 32)
    assert first_key != second_key
    assert len(base64.b64decode(first.iv)) == 16
    assert first.iv != second.iv
    assert first.encryptedData != second.encryptedData


def test_the_wire_format_uses_the_documented_field_names(private_key: rsa.RSAPrivateKey) -> None:
    encrypted = encrypt_payload(PAYLOAD, private_key.public_key())

    fields = msgspec.json.decode(msgspec.json.encode(encrypted))

    assert sorted(fields) == ["encryptedData", "encryptedKey", "iv"]
    assert all(isinstance(value, str) for value in fields.values())


def test_a_pem_with_surrounding_whitespace_and_wrapped_base64_load(
    private_key: rsa.RSAPrivateKey,
) -> None:
    wrapped = der_base64_of(private_key)
    wrapped = "\n".join(wrapped[i : i + 64] for i in range(0, len(wrapped), 64))

    from_pem = load_public_key("\n  " + pem_of(private_key) + "\n")
    from_wrapped = load_public_key(wrapped + "\n")

    assert from_pem.public_numbers() == private_key.public_key().public_numbers()
    assert from_wrapped.public_numbers() == private_key.public_key().public_numbers()


def test_a_pkcs1_rsa_public_key_loads(private_key: rsa.RSAPrivateKey) -> None:
    pkcs1 = private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.PKCS1
    )

    loaded = load_public_key(pkcs1.decode())

    assert loaded.public_numbers() == private_key.public_key().public_numbers()


def test_a_truncated_der_key_is_refused(private_key: rsa.RSAPrivateKey) -> None:
    with pytest.raises(ValueError, match=r"^publicKey is not an RSA public key"):
        load_public_key(der_base64_of(private_key)[:-12])


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not a key",
        "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----",
        base64.b64encode(b"random bytes that are no DER").decode(),
        pem_of(ec.generate_private_key(ec.SECP256R1())),
    ],
    ids=["empty", "text", "bad_pem", "bad_der", "ec_key"],
)
def test_anything_but_an_rsa_public_key_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"^publicKey is not an RSA public key"):
        load_public_key(text)


def test_a_weak_rsa_key_is_refused() -> None:
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)  # noqa: S505 - refusing it is the point

    with pytest.raises(ValueError, match="1024 bits; at least 2048"):
        load_public_key(pem_of(weak))


@pytest.mark.parametrize(
    ("exponent", "modulus"),
    [(65537, 1 << 2048), (65537, (1 << 16384) + 1), ((1 << 100) + 1, (1 << 4096) - 1)],
    ids=["even-modulus", "over-16384-bits", "huge-exponent"],
)
def test_an_rsa_key_that_cannot_encrypt_is_refused(exponent: int, modulus: int) -> None:
    key = rsa.RSAPublicNumbers(exponent, modulus).public_key()
    pem = key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()

    with pytest.raises(ValueError, match="cannot encrypt"):
        load_public_key(pem)
