from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import msgspec
import pytest
from multidict import CIMultiDict

from redline.envelope import AdminPolicy, ApiKeyPrincipal, AuthLevel, Call, Endpoint, HeaderNames
from redline.envelope.auth import required_header
from redline.envelope.errors import InvalidArgument, Unauthenticated
from redline.testing.api import ApiClient

Serve = Callable[..., Awaitable[ApiClient]]


class Empty(msgspec.Struct, forbid_unknown_fields=True):
    pass


async def whoami(call: Call, request: Empty) -> ApiKeyPrincipal:
    return call.api_key


async def nothing(call: Call, request: Empty) -> None:
    return None


def test_header_names_cover_every_brand_primary_first() -> None:
    names = HeaderNames.for_brands(["redline", " Acme "])

    assert names.api_key == ("x-redline-api-key", "x-acme-api-key")
    assert names.auth_token == ("x-redline-auth-token", "x-acme-auth-token")
    assert names.workspace_id == ("x-redline-workspace-id", "x-acme-workspace-id")
    assert names.workspace_token == (
        "x-redline-workspace-auth-token",
        "x-acme-workspace-auth-token",
        "x-redline-auth-token",
        "x-acme-auth-token",
    )
    assert names.admin_token == ("x-redline-admin-token", "x-acme-admin-token")


def test_no_brands_falls_back_to_redline() -> None:
    assert HeaderNames.for_brands(["", "  "]).api_key == ("x-redline-api-key",)


async def test_headers_of_an_extra_brand_are_accepted(serve: Serve) -> None:
    api = await serve(
        [Endpoint("/v1/me", whoami, Empty, ApiKeyPrincipal)], brands=["redline", "acme"]
    )

    got = await api.post("/v1/me", headers={"X-Acme-Api-Key": "key_7", "x-acme-auth-token": "good"})

    assert got.status == 200
    assert got.data["api_key"] == "key_7"


async def test_primary_brand_wins_when_both_are_sent(serve: Serve) -> None:
    api = await serve(
        [Endpoint("/v1/me", whoami, Empty, ApiKeyPrincipal)], brands=["redline", "acme"]
    )
    headers = {
        "x-redline-api-key": "key_primary",
        "x-acme-api-key": "key_extra",
        "x-redline-auth-token": "good",
    }

    got = await api.post("/v1/me", headers=headers)

    assert got.data["api_key"] == "key_primary"


async def test_headers_of_an_unconfigured_brand_are_not_accepted(serve: Serve) -> None:
    api = await serve([Endpoint("/v1/me", whoami, Empty, ApiKeyPrincipal)])

    got = await api.post("/v1/me", headers={"x-acme-api-key": "key_7", "x-acme-auth-token": "good"})

    assert got.status == 400
    assert got.error["details"]["issues"][0]["path"] == "headers.x-redline-api-key"


@pytest.mark.parametrize("headers", [{}, {"x-redline-api-key": ""}, {"x-redline-api-key": "  "}])
def test_missing_or_blank_header_is_invalid_argument_naming_it(headers: dict[str, str]) -> None:
    names = HeaderNames.for_brands(["redline", "acme"])

    with pytest.raises(InvalidArgument) as caught:
        required_header(CIMultiDict(headers), names.api_key)

    assert caught.value.details == {
        "issues": [
            {
                "code": "missing_field",
                "path": "headers.x-redline-api-key",
                "message": "Header x-redline-api-key is required.",
            }
        ]
    }


def test_required_header_is_trimmed() -> None:
    names = HeaderNames.for_brands(["redline"])

    assert required_header(CIMultiDict({"X-Redline-Api-Key": " key_1 "}), names.api_key) == "key_1"


async def raw_post(api: ApiClient, path: str, header_lines: bytes) -> tuple[int, bytes]:
    """Send header bytes no HTTP client library would produce."""
    url = urlsplit(api.base_url)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        writer.write(
            b"POST " + path.encode() + b" HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n"
            b"Connection: close\r\n" + header_lines + b"\r\n"
        )
        await writer.drain()
        response = await reader.read()
    finally:
        writer.close()
        await writer.wait_closed()
    head, _, body = response.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


async def test_credential_header_that_is_not_utf8_is_invalid_argument(serve: Serve) -> None:
    api = await serve([Endpoint("/v1/me", whoami, Empty, ApiKeyPrincipal)])

    status, body = await raw_post(
        api, "/v1/me", b"x-redline-api-key: \xff\xfe\r\nx-redline-auth-token: good\r\n"
    )

    assert status == 400
    error = msgspec.json.decode(body)["error"]
    assert error["details"]["issues"][0]["path"] == "headers.x-redline-api-key"


async def test_admin_token_that_is_not_utf8_is_unauthenticated(serve: Serve) -> None:
    endpoint = Endpoint("/v1/create", nothing, Empty, None, auth=AuthLevel.ADMIN)
    api = await serve([endpoint], admin=AdminPolicy(admin_token="op-secret"))

    status, body = await raw_post(api, "/v1/create", b"x-redline-admin-token: \xff\r\n")

    assert status == 401
    assert msgspec.json.decode(body)["error"]["status"] == "UNAUTHENTICATED"


def test_open_signup_admits_without_a_token() -> None:
    AdminPolicy(open_signup=True).check(None)


def test_open_signup_with_an_admin_token_still_admits_without_a_token() -> None:
    AdminPolicy(admin_token="op-secret", open_signup=True).check(None)


@pytest.mark.parametrize("open_signup", [False, True])
def test_the_admin_token_is_admitted(open_signup: bool) -> None:
    AdminPolicy(admin_token="op-secret", open_signup=open_signup).check("op-secret")


@pytest.mark.parametrize("open_signup", [False, True])
@pytest.mark.parametrize("presented", ["wrong", "", "op-secre", "op-secret2"])
def test_a_wrong_admin_token_is_unauthenticated(open_signup: bool, presented: str) -> None:
    policy = AdminPolicy(admin_token="op-secret", open_signup=open_signup)

    with pytest.raises(Unauthenticated, match="Invalid admin token"):
        policy.check(presented)


def test_closed_signup_without_a_token_is_unauthenticated() -> None:
    with pytest.raises(Unauthenticated, match="admin token"):
        AdminPolicy(admin_token="op-secret").check(None)


@pytest.mark.parametrize("presented", [None, "anything"])
def test_closed_signup_without_a_configured_token_admits_nobody(presented: str | None) -> None:
    with pytest.raises(Unauthenticated):
        AdminPolicy().check(presented)


async def test_admin_endpoint_reads_the_token_of_any_brand(serve: Serve) -> None:
    endpoint = Endpoint("/v1/create", nothing, Empty, None, auth=AuthLevel.ADMIN)
    api = await serve([endpoint], brands=["redline", "acme"], admin=AdminPolicy("op-secret"))

    admitted = await api.post("/v1/create", headers={"x-acme-admin-token": "op-secret"})
    refused = await api.post("/v1/create", headers={"x-acme-admin-token": "nope"})

    assert admitted.status == 200
    assert refused.status == 401
    assert refused.error == {"status": "UNAUTHENTICATED", "message": "Invalid admin token."}
