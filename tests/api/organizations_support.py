"""Adding and reading organizations, as the organization tests do."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace


async def add_orgs(api: ApiClient, ws: Workspace, *ids: str) -> None:
    added = await api.post(
        "/v2/organizations/add",
        {"organizations": [{"organizationId": i, "organizationName": i.upper()} for i in ids]},
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body


async def get_orgs(api: ApiClient, ws: Workspace, **data: Any) -> Response:
    return await api.post("/v2/organizations/get", data, headers=ws.key_headers)


async def get_orgs_with(api: ApiClient, headers: dict[str, str]) -> Response:
    return await api.post("/v2/organizations/get", {}, headers=headers)
