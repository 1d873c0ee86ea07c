"""Requests the API key and auth token tests share."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace

RATE_LIMIT_MESSAGE = "Rate limit exceeded. Try again after 1 minute."


def key_headers(api_key: str, auth_token: str) -> dict[str, str]:
    return {"x-redline-api-key": api_key, "x-redline-auth-token": auth_token}


async def create_key(api: ApiClient, ws: Workspace, **fields: Any) -> dict[str, Any]:
    created = await api.post("/v2/workspace/apikey/create", fields, headers=ws.workspace_headers)
    assert created.status == 200, created.body
    data: dict[str, Any] = created.data
    return data
