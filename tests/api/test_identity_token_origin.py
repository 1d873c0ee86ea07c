"""An API key's allowed domains decide which browser pages may have user tokens made: a
generate_token call that carries an `Origin` header (a browser sends one) is refused with
PERMISSION_DENIED unless the origin's host is an allowed domain of the key. A call from a server
carries no `Origin` and is not affected."""

from __future__ import annotations

import asyncpg
import pytest

from redline.testing.api import ApiClient, Response, Workspace, assert_failure
from tests.api.config_support import ok

PATHS = ["/v2/auth/generate_token", "/v2/auth/token/get"]


async def token_for(
    api: ApiClient, ws: Workspace, origin: str | None, path: str = PATHS[0]
) -> Response:
    headers = dict(ws.key_headers)
    if origin is not None:
        headers["Origin"] = origin
    return await api.post(path, {"userId": "browser-user"}, headers=headers)


@pytest.fixture
async def ws(api: ApiClient) -> Workspace:
    ws = await api.create_workspace("origins@example.com")
    await ok(
        api,
        ws,
        "/v2/workspace/domains/add",
        {"domains": ["https://app.example.com", "*.preview.example.com", "localhost"]},
    )
    return ws


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "origin",
    [
        "https://app.example.com",
        "https://APP.example.com:8443",
        "http://localhost:3000",
        "https://pr-7.preview.example.com",
        "https://a.b.preview.example.com",
    ],
)
async def test_a_page_on_an_allowed_domain_gets_a_token(
    api: ApiClient, ws: Workspace, origin: str, path: str
) -> None:
    answer = await token_for(api, ws, origin, path)

    assert answer.status == 200, answer.body
    assert answer.data["token"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example.com",
        "https://app.example.com.evil.test",
        "https://preview.example.com",
        "https://www.app.example.com",
        "null",
        "file://",
        "",
    ],
)
async def test_a_page_elsewhere_is_refused(
    api: ApiClient, ws: Workspace, origin: str, path: str
) -> None:
    error = assert_failure(await token_for(api, ws, origin, path), 403, "PERMISSION_DENIED")

    assert error["message"] == "The request's origin is not an allowed domain of this API key."


async def test_a_server_call_without_an_origin_is_not_affected(
    api: ApiClient, ws: Workspace
) -> None:
    bare = await api.create_workspace("no-domains@example.com")

    answers = [await token_for(api, ws, None), await token_for(api, bare, None)]

    assert [a.status for a in answers] == [200, 200]


async def test_a_key_without_allowed_domains_makes_no_tokens_for_browsers(
    api: ApiClient,
) -> None:
    bare = await api.create_workspace("no-domains@example.com")

    assert_failure(await token_for(api, bare, "http://localhost:3000"), 403, "PERMISSION_DENIED")


async def test_a_domain_counts_as_soon_as_it_is_added_and_stops_when_deleted(
    api: ApiClient, ws: Workspace
) -> None:
    origin = "https://shop.example.org"
    before = await token_for(api, ws, origin)
    await ok(api, ws, "/v2/workspace/domains/add", {"domains": ["shop.example.org"]})
    added = await token_for(api, ws, origin)
    await ok(api, ws, "/v2/workspace/domains/delete", {"domains": ["shop.example.org"]})
    deleted = await token_for(api, ws, origin)

    assert (before.status, added.status, deleted.status) == (403, 200, 403)


async def test_a_refused_call_records_nothing_of_the_user(
    api: ApiClient, ws: Workspace, db: asyncpg.Connection
) -> None:
    body = {"userId": "stranger", "userProperties": {"name": "Mallory", "email": "m@evil.test"}}
    refused = await api.post(
        "/v2/auth/generate_token",
        body,
        headers={**ws.key_headers, "Origin": "https://evil.example.com"},
    )
    recorded_then = await users_named(db, ws, "stranger")
    allowed = await api.post(
        "/v2/auth/generate_token",
        body,
        headers={**ws.key_headers, "Origin": "https://app.example.com"},
    )

    assert (refused.status, allowed.status) == (403, 200)
    assert recorded_then == 0
    assert await users_named(db, ws, "stranger") == 1


async def users_named(db: asyncpg.Connection, ws: Workspace, user_id: str) -> int:
    count: int = await db.fetchval(
        "SELECT count(*) FROM identity.app_user WHERE api_key = $1 AND user_id = $2",
        ws.api_key,
        user_id,
    )
    return count
