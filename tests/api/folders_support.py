"""Requests and views of folder trees that the folder tests share."""

from __future__ import annotations

from typing import Any

from redline.testing.api import (
    ApiClient,
    Response,
    Workspace,
)


def folder(folder_id: str, parent: str | None = None, **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"folderId": folder_id, "folderName": folder_id.upper(), **fields}
    if parent is not None:
        entry["parentFolderId"] = parent
    return entry


async def add_folders(
    api: ApiClient, ws: Workspace, *folders: dict[str, Any], org: str = "acme"
) -> Response:
    return await api.post(
        "/v2/organizations/folders/add",
        {"organizationId": org, "createOrganization": True, "folders": list(folders)},
        headers=ws.key_headers,
    )


async def get_tree(api: ApiClient, ws: Workspace, org: str = "acme", **data: Any) -> Response:
    return await api.post(
        "/v2/organizations/folders/get", {"organizationId": org, **data}, headers=ws.key_headers
    )


async def update_folders(
    api: ApiClient, ws: Workspace, *changes: dict[str, Any], org: str = "acme"
) -> Response:
    return await api.post(
        "/v2/organizations/folders/update",
        {"organizationId": org, "folders": list(changes)},
        headers=ws.key_headers,
    )


async def update_access(api: ApiClient, ws: Workspace, org: str = "acme", **data: Any) -> Response:
    return await api.post(
        "/v2/organizations/folders/access/update",
        {"organizationId": org, **data},
        headers=ws.key_headers,
    )


def shape(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """{folderId: {its subfolders' shape}}."""
    return {node["folderId"]: shape(node.get("subFolders", [])) for node in nodes}


def flat(nodes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for node in nodes:
        found[node["folderId"]] = node
        found.update(flat(node.get("subFolders", [])))
    return found


async def folders_by_id(api: ApiClient, ws: Workspace, org: str = "acme") -> dict[str, Any]:
    tree = await get_tree(api, ws, org)
    assert tree.status == 200, tree.body
    return flat(tree.data)
