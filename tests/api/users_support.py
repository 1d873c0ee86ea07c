"""Adding users and reading an organization's members, as the user tests do."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace


async def add(api: ApiClient, ws: Workspace, **data: Any) -> Response:
    return await api.post("/v2/users/add", data, headers=ws.key_headers)


async def members(api: ApiClient, ws: Workspace, **data: Any) -> dict[str, dict[str, Any]]:
    listed = await api.post("/v2/users/get", data, headers=ws.key_headers)
    assert listed.status == 200, listed.body
    return {user["userId"]: user for user in listed.data}
