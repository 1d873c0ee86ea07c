"""Grants, resources and directory rows that the permissions and access-model tests share."""

from __future__ import annotations

from typing import Any

import asyncpg

from redline.bus import Bus, rpc
from redline.proto.rpc import AccessCheck, AccessDecision, ResourceGrant
from redline.proto.subjects import RPC_ACCESS_CHECK
from redline.testing.api import ApiClient, Response, Workspace


async def grant(
    api: ApiClient, ws: Workspace, user_id: str, *resources: dict[str, Any]
) -> Response:
    response = await api.post(
        "/v2/auth/permissions/add",
        {"user": {"userId": user_id}, "permissions": {"resources": list(resources)}},
        headers=ws.key_headers,
    )
    assert response.status == 200, response.body
    return response


async def permissions(api: ApiClient, ws: Workspace, **data: Any) -> dict[str, Any]:
    response = await api.post("/v2/auth/permissions/get", data, headers=ws.key_headers)
    assert response.status == 200, response.body
    result: dict[str, Any] = response.data
    return result


def document(org: str, doc: str, role: str = "editor", **extra: Any) -> dict[str, Any]:
    return {"type": "document", "id": doc, "organizationId": org, "accessRole": role, **extra}


def folder(org: str, folder_id: str, role: str = "editor") -> dict[str, Any]:
    return {"type": "folder", "id": folder_id, "organizationId": org, "accessRole": role}


def organization(org: str, role: str = "editor", **extra: Any) -> dict[str, Any]:
    return {"type": "organization", "id": org, "accessRole": role, **extra}


DENIED = "permission_denied"
MISSING = "does_not_exist"


async def add_folder(
    db: asyncpg.Connection,
    ws: Workspace,
    org: str,
    folder_id: str,
    ancestors: list[str],
    *,
    access_type: str | None = "organizationPrivate",
    inherit: bool = True,
) -> None:
    await db.execute(
        "INSERT INTO identity.folder (api_key, organization_id, folder_id, parent_folder_id,"
        " ancestors, access_type, inherit_from_parent, effective_access_type)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        ws.api_key,
        org,
        folder_id,
        ancestors[-1] if ancestors else None,
        ancestors,
        access_type,
        inherit,
        access_type or "organizationPrivate",
    )


async def add_document(
    db: asyncpg.Connection,
    ws: Workspace,
    org: str,
    doc: str,
    *,
    folder_id: str | None = None,
    access_type: str | None = None,
) -> None:
    await db.execute(
        "INSERT INTO identity.document (api_key, organization_id, document_id, folder_id,"
        " access_type) VALUES ($1, $2, $3, $4, $5)",
        ws.api_key,
        org,
        doc,
        folder_id,
        access_type,
    )


async def move_folder(
    db: asyncpg.Connection, ws: Workspace, org: str, folder_id: str, ancestors: list[str]
) -> None:
    await db.execute(
        "UPDATE identity.folder SET parent_folder_id = $4, ancestors = $5"
        " WHERE api_key = $1 AND organization_id = $2 AND folder_id = $3",
        ws.api_key,
        org,
        folder_id,
        ancestors[-1] if ancestors else None,
        ancestors,
    )


async def check(
    bus: Bus, ws: Workspace, org: str, doc: str, user: str, *grants: ResourceGrant
) -> AccessDecision:
    return await rpc.call(
        bus.nc, RPC_ACCESS_CHECK, AccessCheck(ws.api_key, org, doc, user, grants), AccessDecision
    )


async def directory(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> None:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, response.body
