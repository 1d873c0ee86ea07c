from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import pytest
from aiohttp import web
from pytest_aiohttp import AiohttpClient

from redline.envelope import (
    GATE,
    AdminPolicy,
    ApiKeyPrincipal,
    Endpoint,
    Gate,
    HeaderNames,
    RateLimiter,
    WorkspacePrincipal,
    add_endpoints,
    envelope_middleware,
)
from redline.envelope.errors import Unauthenticated
from redline.testing.api import ApiClient


class StubVerifier:
    """Accepts the auth token "good" for any API key or workspace id. The credential store itself
    belongs to the identity service and is tested there."""

    async def verify_api_key(self, api_key: str, token: str) -> ApiKeyPrincipal:
        if token != "good":
            raise Unauthenticated("Invalid API key or auth token.")
        return ApiKeyPrincipal(workspace_id="ws_1", api_key=api_key)

    async def verify_workspace(self, workspace_id: str, token: str) -> WorkspacePrincipal:
        if token != "good":
            raise Unauthenticated("Invalid workspace credentials.")
        return WorkspacePrincipal(workspace_id=workspace_id)


def make_app(
    endpoints: Sequence[Endpoint],
    *,
    brands: Sequence[str] = ("redline",),
    admin: AdminPolicy | None = None,
    limiter: RateLimiter | None = None,
) -> web.Application:
    app = web.Application(middlewares=[envelope_middleware])
    app[GATE] = Gate(
        verifier=StubVerifier(),
        headers=HeaderNames.for_brands(list(brands)),
        admin=admin or AdminPolicy(),
        limiter=limiter,
    )
    add_endpoints(app, list(endpoints))
    return app


@pytest.fixture
def serve(aiohttp_client: AiohttpClient) -> Callable[..., Awaitable[ApiClient]]:
    """Start an app with `make_app`'s arguments and return a client of it."""

    async def start(
        endpoints: Sequence[Endpoint],
        *,
        brands: Sequence[str] = ("redline",),
        admin: AdminPolicy | None = None,
        limiter: RateLimiter | None = None,
        setup: Callable[[web.Application], None] | None = None,
    ) -> ApiClient:
        app = make_app(endpoints, brands=brands, admin=admin, limiter=limiter)
        if setup is not None:
            setup(app)
        client = await aiohttp_client(app)
        return ApiClient(client.session, str(client.make_url("")))

    return start
