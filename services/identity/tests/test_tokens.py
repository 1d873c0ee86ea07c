"""Credential material: random tokens, their digests, and sealed copies."""

from __future__ import annotations

import base64
import hmac
import secrets
import string

import pytest
from cryptography.exceptions import InvalidTag

from redline.identity import tokens


def token_bytes(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


def test_tokens_carry_at_least_128_random_bits() -> None:
    token = tokens.new_token()

    assert len(token_bytes(token)) * 8 >= 128
    assert set(token) <= set(string.ascii_letters + string.digits + "-_")


def test_tokens_do_not_repeat() -> None:
    assert len({tokens.new_token() for _ in range(1000)}) == 1000


def test_ids_are_url_safe_and_of_the_asked_length() -> None:
    assert len(tokens.new_id()) == 20
    assert len(tokens.new_id(32)) == 32
    assert set(tokens.new_id(200)) <= set(string.ascii_letters + string.digits)
    assert len({tokens.new_id() for _ in range(1000)}) == 1000


def test_digest_is_fixed_length_and_deterministic() -> None:
    token = tokens.new_token()

    assert tokens.digest(token) == tokens.digest(token)
    assert len(tokens.digest(token)) == 32
    assert tokens.digest(token) != tokens.digest(token + "x")
    assert token.encode() not in tokens.digest(token)


def test_matches_the_token_its_digest_was_made_from() -> None:
    token = tokens.new_token()

    assert tokens.matches(token, [tokens.digest(token)]) is True


def test_does_not_match_another_token() -> None:
    token = tokens.new_token()

    assert tokens.matches(token, [tokens.digest(tokens.new_token())]) is False
    assert tokens.matches(token[:-1], [tokens.digest(token)]) is False
    assert tokens.matches("", [tokens.digest(token)]) is False


def test_matches_nothing_when_no_digest_is_stored() -> None:
    assert tokens.matches(tokens.new_token(), []) is False


def test_matches_any_of_several_live_digests() -> None:
    live = [tokens.new_token() for _ in range(3)]
    digests = [tokens.digest(t) for t in live]

    assert all(tokens.matches(t, digests) for t in live)
    assert tokens.matches(tokens.new_token(), digests) is False


def test_every_stored_digest_is_compared_in_constant_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Stopping at the first match would let timing tell which of a key's tokens was presented.
    compared: list[bytes] = []
    compare_digest = hmac.compare_digest

    def recording_compare_digest(a: bytes, b: bytes) -> bool:
        compared.append(b)
        return compare_digest(a, b)

    monkeypatch.setattr(hmac, "compare_digest", recording_compare_digest)
    token = tokens.new_token()
    digests = [tokens.digest(token), tokens.digest("second"), tokens.digest("third")]

    assert tokens.matches(token, digests) is True
    assert compared == digests


@pytest.fixture
def sealer() -> tokens.Sealer:
    return tokens.Sealer(secrets.token_bytes(32))


def test_sealed_token_unseals_with_the_same_binding(sealer: tokens.Sealer) -> None:
    token = tokens.new_token()

    sealed = sealer.seal(token, "workspace-1")

    assert sealer.unseal(sealed, "workspace-1") == token
    assert token.encode() not in sealed


def test_sealed_token_does_not_unseal_for_another_record(sealer: tokens.Sealer) -> None:
    # A sealed copy moved to another row (say, another workspace's) must not be readable there.
    sealed = sealer.seal(tokens.new_token(), "workspace-1")

    with pytest.raises(InvalidTag):
        sealer.unseal(sealed, "workspace-2")


def test_sealed_token_does_not_unseal_under_another_server_key(sealer: tokens.Sealer) -> None:
    sealed = sealer.seal(tokens.new_token(), "key-1")

    with pytest.raises(InvalidTag):
        tokens.Sealer(secrets.token_bytes(32)).unseal(sealed, "key-1")


def test_tampered_sealed_token_does_not_unseal(sealer: tokens.Sealer) -> None:
    sealed = bytearray(sealer.seal(tokens.new_token(), "key-1"))
    sealed[-1] ^= 0x01

    with pytest.raises(InvalidTag):
        sealer.unseal(bytes(sealed), "key-1")


def test_sealing_twice_gives_different_ciphertexts(sealer: tokens.Sealer) -> None:
    token = tokens.new_token()

    first, second = sealer.seal(token, "key-1"), sealer.seal(token, "key-1")

    assert first != second
    assert sealer.unseal(first, "key-1") == sealer.unseal(second, "key-1") == token
