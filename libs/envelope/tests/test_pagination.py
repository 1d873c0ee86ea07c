from __future__ import annotations

import base64

import msgspec
import pytest

from redline.envelope import PageTokens
from redline.envelope.errors import InvalidArgument


class Cursor(msgspec.Struct):
    createdAt: int
    id: str


TOKENS = PageTokens(b"k" * 32)


def assert_invalid(token: str, *, workspace: str = "ws_1", kind: str = "members") -> None:
    with pytest.raises(InvalidArgument) as caught:
        TOKENS.decode(workspace, kind, token, Cursor)
    assert caught.value.details is not None
    [issue] = caught.value.details["issues"]
    assert issue["path"] == "data.pageToken"


def flip_middle_char(token: str) -> str:
    # The last character may carry padding bits only; one in the middle always counts.
    middle = len(token) // 2
    return token[:middle] + ("A" if token[middle] != "A" else "B") + token[middle + 1 :]


def test_token_round_trips_its_cursor() -> None:
    cursor = Cursor(createdAt=1_700_000_000_000, id="m_42")

    token = TOKENS.encode("ws_1", "members", cursor)

    assert TOKENS.decode("ws_1", "members", token, Cursor) == cursor


def test_token_round_trips_plain_cursors() -> None:
    token = TOKENS.encode("ws_1", "offsets", 120)

    assert TOKENS.decode("ws_1", "offsets", token, int) == 120


def test_token_is_url_safe_text() -> None:
    token = TOKENS.encode("ws_1", "members", Cursor(createdAt=1, id="é/+?&=" * 10))

    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_tampered_token_is_rejected() -> None:
    token = TOKENS.encode("ws_1", "members", Cursor(createdAt=1, id="m_1"))

    assert_invalid(flip_middle_char(token))


def test_token_with_a_rewritten_cursor_is_rejected() -> None:
    token = TOKENS.encode("ws_1", "members", Cursor(createdAt=1, id="m_1"))
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    forged = raw.replace(b"m_1", b"m_9")

    assert_invalid(base64.urlsafe_b64encode(forged).rstrip(b"=").decode())


def test_token_of_another_workspace_is_rejected() -> None:
    token = TOKENS.encode("ws_other", "members", Cursor(createdAt=1, id="m_1"))

    assert_invalid(token, workspace="ws_1")


def test_token_of_another_listing_is_rejected() -> None:
    token = TOKENS.encode("ws_1", "apikeys", Cursor(createdAt=1, id="m_1"))

    assert_invalid(token, kind="members")


def test_token_signed_with_another_key_is_rejected() -> None:
    token = PageTokens(b"z" * 32).encode("ws_1", "members", Cursor(createdAt=1, id="m_1"))

    assert_invalid(token)


def test_token_whose_cursor_has_another_shape_is_rejected() -> None:
    token = TOKENS.encode("ws_1", "members", {"unexpected": True})

    assert_invalid(token)


@pytest.mark.parametrize(
    "token",
    ["", "garbage", "!!!not base64!!!", "a", "é", "AAAA" * 20, "=" * 8, "eyJ0b2tlbiI6MX0"],
)
def test_garbage_token_is_rejected(token: str) -> None:
    assert_invalid(token)
