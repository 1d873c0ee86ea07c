"""Requests the advanced webhook endpoint tests share."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace

ENDPOINTS = "/v2/workspace/advancedwebhook/endpoints"
CREATE = f"{ENDPOINTS}/create"
LIST = f"{ENDPOINTS}/get"
UPDATE = f"{ENDPOINTS}/update"
DELETE = f"{ENDPOINTS}/delete"
SECRET = f"{ENDPOINTS}/secret/get"
CONFIG_UPDATE = "/v2/workspace/advancedwebhookconfig/update"
HOOK = "https://hooks.example.com/velt"


async def call(api: ApiClient, ws: Workspace, path: str, data: Any = None) -> Response:
    return await api.post(path, data or {}, headers=ws.key_headers)


async def ok(api: ApiClient, ws: Workspace, path: str, data: Any = None) -> Any:
    response = await call(api, ws, path, data)
    assert response.status == 200, (path, response.body)
    assert response.result["status"] == "success"
    return response.data


async def enable(api: ApiClient, ws: Workspace) -> None:
    await ok(api, ws, CONFIG_UPDATE, {"isEnabled": True})


async def create(api: ApiClient, ws: Workspace, **fields: Any) -> dict[str, Any]:
    endpoint: dict[str, Any] = await ok(api, ws, CREATE, {"url": HOOK, **fields})
    return endpoint


async def secret_of(api: ApiClient, ws: Workspace, endpoint_id: str) -> str:
    data = await ok(api, ws, SECRET, {"endpointId": endpoint_id})
    secret: str = data["secret"]
    return secret
