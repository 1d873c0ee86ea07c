from __future__ import annotations

from redline.envelope.constant_time import same_secret


def test_equal_secrets_match_as_str_or_bytes() -> None:
    assert same_secret("s3cret", "s3cret")
    assert same_secret(b"s3cret", "s3cret")
    assert not same_secret("s3cret", "s3creT")


def test_non_ascii_and_undecodable_input_is_a_mismatch_not_an_error() -> None:
    assert not same_secret("é", "abc")
    # aiohttp hands over header bytes that are not UTF-8 as surrogates.
    undecodable = b"\xff\xfe".decode(errors="surrogateescape")
    assert not same_secret(undecodable, "abc")
    assert same_secret(undecodable, b"\xff\xfe")
