"""API-key endpoints and user tokens: refused unless the endpoint takes them."""

from __future__ import annotations

import msgspec
from aiohttp import web
from pytest_aiohttp import AiohttpClient

from redline.envelope import (
    GATE,
    AdminPolicy,
    ApiKeyPrincipal,
    Call,
    Endpoint,
    Gate,
    HeaderNames,
    WorkspacePrincipal,
    add_endpoints,
    envelope_middleware,
)
from redline.envelope.errors import Unauthenticated
from redline.testing.api import ApiClient


class UserTokenVerifier:
    """The token "key" is the API key's own auth token; "user" is a user token of user u1."""

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        if token == "key":
            return ApiKeyPrincipal("ws", api_key)
        if token == "user":
            return ApiKeyPrincipal("ws", api_key, user_id="u1")
        raise Unauthenticated("Invalid API key or auth token.")

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        raise Unauthenticated("Invalid workspace credentials.")


class Empty(msgspec.Struct, forbid_unknown_fields=True):
    pass


async def caller(call: Call, request: Empty) -> str | None:
    return call.api_key.user_id


async def start(aiohttp_client: AiohttpClient) -> ApiClient:
    app = web.Application(middlewares=[envelope_middleware])
    app[GATE] = Gate(
        verifier=UserTokenVerifier(),
        headers=HeaderNames.for_brands(["redline"]),
        admin=AdminPolicy(),
        limiter=None,
    )
    add_endpoints(
        app,
        [
            Endpoint("/v1/config", caller, Empty, str | None),
            Endpoint("/v1/comments", caller, Empty, str | None, user_tokens=True),
        ],
    )
    client = await aiohttp_client(app)
    return ApiClient(client.session, str(client.make_url("")))


def headers(token: str) -> dict[str, str]:
    return {"x-redline-api-key": "k", "x-redline-auth-token": token}


async def test_user_tokens_are_refused_by_default(aiohttp_client: AiohttpClient) -> None:
    api = await start(aiohttp_client)

    refused = await api.post("/v1/config", headers=headers("user"))

    assert refused.status == 403
    assert refused.error["status"] == "PERMISSION_DENIED"
    assert (await api.post("/v1/config", headers=headers("key"))).data is None


async def test_endpoints_that_take_user_tokens_see_the_user(aiohttp_client: AiohttpClient) -> None:
    api = await start(aiohttp_client)

    assert (await api.post("/v1/comments", headers=headers("user"))).data == "u1"
    assert (await api.post("/v1/comments", headers=headers("key"))).data is None
