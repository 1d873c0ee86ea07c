from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import msgspec
import pytest

from redline.envelope import (
    AdminPolicy,
    ApiKeyPrincipal,
    AuthLevel,
    Call,
    Endpoint,
    RateLimiter,
    Reply,
    Style,
    Tier,
    WorkspacePrincipal,
    paged,
)
from redline.runtime.logs import RequestContextFilter
from redline.testing.api import ApiClient

Serve = Callable[..., Awaitable[ApiClient]]

KEY_HEADERS = {"x-redline-api-key": "key_1", "x-redline-auth-token": "good"}
WORKSPACE_HEADERS = {"x-redline-workspace-id": "ws_9", "x-redline-workspace-auth-token": "good"}


class Greet(msgspec.Struct, forbid_unknown_fields=True):
    name: str


class Greeting(msgspec.Struct):
    text: str


class Page(msgspec.Struct, forbid_unknown_fields=True):
    pageToken: str | None = None


async def greet(call: Call, request: Greet) -> Greeting:
    return Greeting(text=f"Hello, {request.name}")


Principal = ApiKeyPrincipal | WorkspacePrincipal | None


async def who(call: Call, request: Page) -> Principal:
    return call.principal


async def test_result_envelope_carries_status_message_and_data(serve: Serve) -> None:
    endpoint = Endpoint("/v1/greet", greet, Greet, Greeting, auth=AuthLevel.NONE, message="Hi")
    api = await serve([endpoint])

    got = await api.post("/v1/greet", {"name": "Ada"})

    assert got.status == 200
    assert got.headers["Content-Type"].startswith("application/json")
    assert got.body == {
        "result": {"status": "success", "message": "Hi", "data": {"text": "Hello, Ada"}}
    }


async def test_plain_style_returns_the_result_alone(serve: Serve) -> None:
    endpoint = Endpoint("/v1/greet", greet, Greet, Greeting, auth=AuthLevel.NONE, style=Style.PLAIN)
    api = await serve([endpoint])

    got = await api.post("/v1/greet", {"name": "Ada"})

    assert got.body == {"result": {"text": "Hello, Ada"}}


async def test_reply_chooses_the_message_and_adds_fields_beside_data(serve: Serve) -> None:
    async def handler(call: Call, request: Greet) -> Reply[Greeting]:
        return Reply(Greeting("x"), message="Made it", extra={"warning": "deprecated"})

    api = await serve([Endpoint("/v1/r", handler, Greet, Greeting, auth=AuthLevel.NONE)])

    got = await api.post("/v1/r", {"name": "Ada"})

    assert got.body == {
        "result": {
            "status": "success",
            "message": "Made it",
            "data": {"text": "x"},
            "warning": "deprecated",
        }
    }


async def test_paged_reply_has_next_page_token_until_the_last_page(serve: Serve) -> None:
    async def handler(call: Call, request: Page) -> Reply[list[int]]:
        if request.pageToken is None:
            return paged([1, 2], "t2")
        return paged([3], None)

    api = await serve(
        [Endpoint("/v1/list", handler, Page, list[int], auth=AuthLevel.NONE, paged=True)]
    )

    first = await api.post("/v1/list")
    last = await api.post("/v1/list", {"pageToken": "t2"})

    assert first.result == {
        "status": "success",
        "message": "Success",
        "data": [1, 2],
        "nextPageToken": "t2",
    }
    assert last.result == {"status": "success", "message": "Success", "data": [3]}


async def test_paged_reply_may_repeat_the_token_as_page_token(serve: Serve) -> None:
    async def handler(call: Call, request: Page) -> Reply[list[int]]:
        return paged([1], "t2", also_as_page_token=True)

    api = await serve([Endpoint("/v1/list", handler, Page, list[int], auth=AuthLevel.NONE)])

    got = await api.post("/v1/list")

    assert got.result["nextPageToken"] == "t2"
    assert got.result["pageToken"] == "t2"


async def test_api_key_endpoint_gives_the_handler_the_verified_key(serve: Serve) -> None:
    api = await serve([Endpoint("/v1/who", who, Page, Principal)])

    got = await api.post("/v1/who", headers=KEY_HEADERS)

    assert got.status == 200
    assert got.data == {
        "workspace_id": "ws_1",
        "api_key": "key_1",
        "user_id": None,
        "grants": [],
        "expires_at": None,
    }


async def test_api_key_endpoint_without_credentials_names_the_missing_header(serve: Serve) -> None:
    api = await serve([Endpoint("/v1/who", who, Page, Principal)])

    got = await api.post("/v1/who", headers={"x-redline-auth-token": "good"})

    assert got.status == 400
    assert got.error["status"] == "INVALID_ARGUMENT"
    assert got.error["details"]["issues"][0]["path"] == "headers.x-redline-api-key"


async def test_api_key_endpoint_with_a_wrong_token_is_unauthenticated(serve: Serve) -> None:
    api = await serve([Endpoint("/v1/who", who, Page, Principal)])

    got = await api.post("/v1/who", headers={**KEY_HEADERS, "x-redline-auth-token": "bad"})

    assert got.status == 401
    assert got.error["status"] == "UNAUTHENTICATED"


async def test_workspace_endpoint_gives_the_handler_the_workspace(serve: Serve) -> None:
    api = await serve([Endpoint("/v1/who", who, Page, Principal, auth=AuthLevel.WORKSPACE)])

    got = await api.post("/v1/who", headers=WORKSPACE_HEADERS)
    missing = await api.post("/v1/who", headers=KEY_HEADERS)

    assert got.data == {"workspace_id": "ws_9"}
    assert missing.status == 400
    assert missing.error["details"]["issues"][0]["path"] == "headers.x-redline-workspace-id"


async def test_credentials_are_checked_before_the_body(serve: Serve) -> None:
    api = await serve([Endpoint("/v1/greet", greet, Greet, Greeting)])

    got = await api.post("/v1/greet", raw=b"not json")

    assert got.status == 400
    assert got.error["details"]["issues"][0]["path"] == "headers.x-redline-api-key"


async def test_admin_endpoint_follows_the_admin_policy(serve: Serve) -> None:
    endpoint = Endpoint("/v1/who", who, Page, Principal, auth=AuthLevel.ADMIN)
    api = await serve([endpoint], admin=AdminPolicy(admin_token="op-secret"))

    admitted = await api.post("/v1/who", headers={"x-redline-admin-token": "op-secret"})
    refused = await api.post("/v1/who")

    assert admitted.status == 200
    assert admitted.data is None
    assert refused.status == 401


async def test_rate_limit_counts_per_api_key(serve: Serve) -> None:
    limiter = RateLimiter({Tier.SEARCH: 2})
    api = await serve(
        [Endpoint("/v1/who", who, Page, Principal, tier=Tier.SEARCH)], limiter=limiter
    )
    other_key = {**KEY_HEADERS, "x-redline-api-key": "key_2"}

    statuses = [(await api.post("/v1/who", headers=KEY_HEADERS)).status for _ in range(3)]
    other = await api.post("/v1/who", headers=other_key)

    assert statuses == [200, 200, 429]
    assert other.status == 200


async def test_admin_endpoints_are_limited_by_the_signup_tier(serve: Serve) -> None:
    limiter = RateLimiter({Tier.GENERAL: 100, Tier.SIGNUP: 1})
    endpoint = Endpoint("/v1/signup", who, Page, Principal, auth=AuthLevel.ADMIN)
    api = await serve([endpoint], admin=AdminPolicy(open_signup=True), limiter=limiter)

    first = await api.post("/v1/signup")
    second = await api.post("/v1/signup")

    assert first.status == 200
    assert second.status == 429
    assert second.error["message"] == "Rate limit exceeded. Try again after 1 minute."
    assert 1 <= int(second.headers["Retry-After"]) <= 60


async def test_public_endpoints_need_no_credentials_and_are_limited_per_address(
    serve: Serve,
) -> None:
    limiter = RateLimiter({Tier.GENERAL: 100, Tier.SIGNUP: 2})
    endpoint = Endpoint("/v1/public", who, Page, Principal, auth=AuthLevel.PUBLIC)
    api = await serve([endpoint], limiter=limiter)

    statuses = [(await api.post("/v1/public")).status for _ in range(3)]

    assert statuses == [200, 200, 429]


async def log_handled(call: Call, request: Page) -> None:
    logging.getLogger("redline.test.handler").info("handled")


@pytest.mark.parametrize(
    ("auth", "headers", "workspace"),
    [
        (AuthLevel.API_KEY, KEY_HEADERS, "ws_1"),
        (AuthLevel.WORKSPACE, WORKSPACE_HEADERS, "ws_9"),
        (AuthLevel.NONE, {}, None),
    ],
    ids=["api-key", "workspace", "anonymous"],
)
async def test_a_requests_log_lines_carry_its_request_id_and_workspace(
    serve: Serve,
    caplog: pytest.LogCaptureFixture,
    auth: AuthLevel,
    headers: dict[str, str],
    workspace: str | None,
) -> None:
    api = await serve([Endpoint("/v1/log", log_handled, Page, None, auth=auth)])
    caplog.handler.addFilter(RequestContextFilter())

    with caplog.at_level(logging.INFO, logger="redline.test.handler"):
        first = await api.post("/v1/log", headers={**headers, "x-request-id": "req-a"})
        second = await api.post("/v1/log", headers={**headers, "x-request-id": "req-b"})

    assert (first.status, second.status) == (200, 200)
    lines = [r for r in caplog.records if r.name == "redline.test.handler"]
    assert [getattr(r, "requestId", None) for r in lines] == ["req-a", "req-b"]
    assert [getattr(r, "workspaceId", None) for r in lines] == [workspace, workspace]


async def test_failed_checks_of_an_address_wait_but_credentials_that_verify_do_not(
    serve: Serve,
) -> None:
    limiter = RateLimiter({Tier.GENERAL: 100, Tier.AUTH_FAILURES: 2})
    api = await serve([Endpoint("/v1/who", who, Page, Principal)], limiter=limiter)
    wrong = {**KEY_HEADERS, "x-redline-auth-token": "bad"}

    failures = [(await api.post("/v1/who", headers=wrong)).status for _ in range(3)]
    right = await api.post("/v1/who", headers=KEY_HEADERS)

    assert failures == [401, 401, 429]
    assert right.status == 200
