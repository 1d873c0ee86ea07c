"""Encrypting webhook payloads for receivers that registered an RSA public key.

The payload is encrypted with a fresh AES-256 key (CBC, PKCS#7 padding, random IV) and that key
is wrapped with the receiver's RSA key (OAEP with SHA-256 and MGF1-SHA-256, no label): RSA alone
can only encrypt a few hundred bytes.
"""

from __future__ import annotations

import base64
import binascii
import os

import msgspec
from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.padding import MGF1, OAEP
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

# Smaller RSA keys are breakable, which would make the encryption a pretence.
MIN_KEY_BITS = 2048

_NOT_RSA = (
    "publicKey is not an RSA public key (expected PEM '-----BEGIN PUBLIC KEY-----' "
    "or base64 of a DER SubjectPublicKeyInfo)"
)


class EncryptedPayload(msgspec.Struct, frozen=True):
    """What the receiver gets instead of the plaintext; every field is standard base64.
    The field names are the wire format."""

    encryptedData: str
    encryptedKey: str
    iv: str


def load_public_key(text: str) -> rsa.RSAPublicKey:
    """The RSA public key in `text`: PEM, or base64 of DER SubjectPublicKeyInfo. Raises
    ValueError for anything else, including RSA keys shorter than MIN_KEY_BITS."""
    text = text.strip()
    try:
        if text.startswith("-----BEGIN"):
            key = serialization.load_pem_public_key(text.encode("ascii"))
        else:
            der = base64.b64decode("".join(text.split()), validate=True)
            key = serialization.load_der_public_key(der)
    except (ValueError, TypeError, UnicodeEncodeError, binascii.Error) as exc:
        raise ValueError(_NOT_RSA) from exc
    if not isinstance(key, rsa.RSAPublicKey):
        raise ValueError(_NOT_RSA)
    if key.key_size < MIN_KEY_BITS:
        raise ValueError(
            f"publicKey is an RSA key of {key.key_size} bits; at least {MIN_KEY_BITS} are required"
        )
    # Some keys parse but cannot encrypt (an even modulus, one over 16,384 bits, a public
    # exponent OpenSSL refuses): found now, when the key is saved, rather than at every event.
    try:
        _wrap(os.urandom(32), key)
    except ValueError:
        raise ValueError("publicKey is an RSA key that cannot encrypt") from None
    return key


def encrypt_payload(plaintext: bytes, public_key: rsa.RSAPublicKey) -> EncryptedPayload:
    """`plaintext` encrypted under a new AES key and IV, that key wrapped for `public_key`."""
    key = os.urandom(32)
    iv = os.urandom(16)
    padder = padding.PKCS7(algorithms.AES.block_size).padder()
    padded = padder.update(plaintext) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    ciphertext = encryptor.update(padded) + encryptor.finalize()
    return EncryptedPayload(
        encryptedData=_b64(ciphertext), encryptedKey=_b64(_wrap(key, public_key)), iv=_b64(iv)
    )


def _wrap(key: bytes, public_key: rsa.RSAPublicKey) -> bytes:
    return public_key.encrypt(
        key, OAEP(mgf=MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
