"""The hosted product's official Python SDK (velt-py) pointed at Redline, as a customer switching
over would: only its base URL changes. Its REST layer is synchronous (`requests`), so each call
runs on a thread while the system under test keeps serving on the test's loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from velt_py import VeltSDK
from velt_py.backends.api_backend import ApiBackend
from velt_py.services.api.base_api_service import BaseApiService
from velt_py.services.api.token_service import TokenService

from redline.testing.api import ApiClient, StartApi, Workspace

# The SDK sends its headers under the hosted product's brand.
BRANDS = ["redline", "velt"]

Answer = dict[str, Any]


@dataclass
class Sdk:
    """The SDK's REST layer with a workspace's credentials, and the plain client beside it."""

    api: ApiBackend
    workspace: Workspace
    http: ApiClient

    async def call(self, method: Callable[[Any], Answer], request: Any) -> Answer:
        """Call one SDK method; the raw JSON answer it returns to its user."""
        return await asyncio.to_thread(method, request)

    async def result(self, method: Callable[[Any], Answer], request: Any) -> Any:
        """Call one SDK method and assert it did not fail; its `result`. Memory and workflow
        answers carry their fields there, as the reference shows."""
        answer = await self.call(method, request)
        assert "error" not in answer, answer
        return answer["result"]

    async def ok(self, method: Callable[[Any], Answer], request: Any) -> Any:
        """Call one SDK method and assert the success envelope; its `data`."""
        answer = await self.call(method, request)
        assert set(answer) == {"result"}, answer
        assert answer["result"]["status"] == "success", answer
        assert answer["result"]["message"], answer
        return answer["result"].get("data")


def point_sdk_at(base_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The two places the SDK keeps the hosted product's address."""
    monkeypatch.setattr(BaseApiService, "VELT_API_BASE_URL", base_url)
    monkeypatch.setattr(TokenService, "VELT_API_URL", base_url + "/v2/auth/token/get")


async def sdk_for(
    target_url: str | None,
    start_api: StartApi,
    http: ApiClient | None,
    monkeypatch: pytest.MonkeyPatch,
    **settings: Any,
) -> Sdk:
    """A workspace made through Redline's own API, and the SDK initialised with its credentials
    exactly as its documentation shows. `settings` start the in-process system with those
    settings changed (a target started elsewhere has its own)."""
    client = http if target_url is not None and http is not None and not settings else None
    if client is None:
        client = await start_api(header_brands=BRANDS, **settings)
    point_sdk_at(client.base_url, monkeypatch)
    workspace = await client.create_workspace()
    sdk = VeltSDK.initialize(
        {
            "apiKey": workspace.api_key,
            "authToken": workspace.auth_token,
            "workspaceId": workspace.id,
            "workspaceAuthToken": workspace.token,
        }
    )
    return Sdk(sdk.api, workspace, client)
