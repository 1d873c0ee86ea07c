"""Black-box HTTP tests: against the all-in-one app in this process (default) or `--target URL`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from pytest_aiohttp import AiohttpClient

from redline.cli.system import create_system_app
from redline.testing.api import ApiClient


@pytest.fixture
async def api(
    request: pytest.FixtureRequest,
    runtime_overrides: dict[str, Any],
    aiohttp_client: AiohttpClient,
) -> AsyncIterator[ApiClient]:
    target = request.config.getoption("--target")
    if target == "inproc":
        app, _ = create_system_app({}, **runtime_overrides)
        client = await aiohttp_client(app)
        yield ApiClient(client.session, str(client.make_url("")))
        return
    async with aiohttp.ClientSession() as session:
        yield ApiClient(session, target)
