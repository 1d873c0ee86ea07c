"""Flows across services over real PostgreSQL, NATS and an HTTPS receiver standing for a
customer's server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from redline.cli.system import create_system_app
from redline.testing.api import ApiClient
from redline.testing.receiver import WebhookReceiver

StartApp = Callable[[web.Application], Awaitable[ApiClient]]
StopApp = Callable[[ApiClient], Awaitable[None]]


@pytest.fixture
async def receiver(tmp_path: Path) -> AsyncIterator[WebhookReceiver]:
    server = WebhookReceiver(tmp_path / "receiver-tls")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
def notify_overrides(
    runtime_overrides: dict[str, Any], receiver: WebhookReceiver
) -> dict[str, Any]:
    """This test's servers, the receiver let past the address guard and its CA trusted, and
    retries a few milliseconds apart instead of minutes."""
    return {
        **runtime_overrides,
        "webhook_allow": ["127.0.0.1"],
        "webhook_ca_file": str(receiver.ca_file),
        "webhook_retry_schedule_s": [0.05] * 5,
        "webhook_retry_jitter": 0.0,
    }


@pytest.fixture
def servers() -> dict[int, TestClient[Any, Any]]:
    """The test servers this test started, by the id of the ApiClient that talks to each."""
    return {}


@pytest.fixture
def start_app(aiohttp_client: AiohttpClient, servers: dict[int, TestClient[Any, Any]]) -> StartApp:
    async def start(app: web.Application) -> ApiClient:
        client = await aiohttp_client(app)
        api = ApiClient(client.session, str(client.make_url("")))
        servers[id(api)] = client
        return api

    return start


@pytest.fixture
def stop_app(servers: dict[int, TestClient[Any, Any]]) -> StopApp:
    """Stop an app as its process would stop: its background work ends, its cleanup runs."""

    async def stop(api: ApiClient) -> None:
        await servers.pop(id(api)).close()

    return stop


@pytest.fixture
async def api(notify_overrides: dict[str, Any], start_app: StartApp) -> ApiClient:
    """The whole system in this process."""
    app, _ = create_system_app({}, **notify_overrides)
    return await start_app(app)
