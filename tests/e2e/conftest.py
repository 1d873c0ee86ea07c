"""Flows across services over real PostgreSQL, NATS and an HTTPS receiver standing for a
customer's server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from pytest_aiohttp import AiohttpClient

from redline.cli.system import create_system_app
from redline.testing.api import ApiClient
from redline.testing.receiver import WebhookReceiver

StartApp = Callable[[web.Application], Awaitable[ApiClient]]


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
def start_app(aiohttp_client: AiohttpClient) -> StartApp:
    async def start(app: web.Application) -> ApiClient:
        client = await aiohttp_client(app)
        return ApiClient(client.session, str(client.make_url("")))

    return start


@pytest.fixture
async def api(notify_overrides: dict[str, Any], start_app: StartApp) -> ApiClient:
    """The whole system in this process."""
    app, _ = create_system_app({}, **notify_overrides)
    return await start_app(app)
