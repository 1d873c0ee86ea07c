"""Requests and views of documents that the document tests share."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace

DOCUMENT_FIELDS = {
    "id",
    "documentName",
    "organizationId",
    "folderId",
    "accessType",
    "disabled",
    "metadata",
    "createdAt",
    "lastUpdated",
}


async def add_docs(
    api: ApiClient, ws: Workspace, *docs: dict[str, Any] | str, org: str = "acme", **data: Any
) -> Response:
    documents = [{"documentId": d} if isinstance(d, str) else d for d in docs]
    return await api.post(
        "/v2/organizations/documents/add",
        {"organizationId": org, "createOrganization": True, "documents": documents, **data},
        headers=ws.key_headers,
    )


async def get_docs(api: ApiClient, ws: Workspace, org: str = "acme", **data: Any) -> Response:
    return await api.post(
        "/v2/organizations/documents/get", {"organizationId": org, **data}, headers=ws.key_headers
    )


async def docs_by_id(api: ApiClient, ws: Workspace, org: str = "acme") -> dict[str, Any]:
    found = await get_docs(api, ws, org)
    assert found.status == 200, found.body
    return {d["id"]: d for d in found.data}


async def add_folders(
    api: ApiClient, ws: Workspace, *folders: dict[str, Any], org: str = "acme"
) -> None:
    added = await api.post(
        "/v2/organizations/folders/add",
        {"organizationId": org, "createOrganization": True, "folders": list(folders)},
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body
