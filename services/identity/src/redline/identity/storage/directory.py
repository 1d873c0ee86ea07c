"""SQL shared by organizations, folders and documents: tenancy lookups, the organization locks,
the metadata merge and the row types. Everything is keyed by API key first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from redline.pg import Connection, Pool

SCHEMA = "identity"


# Metadata updates merge a patch into the stored object one level deep; a key set to null in the
# patch is removed, and a NULL patch leaves the metadata as it is. Each UPDATE spells it out:
#   CASE WHEN $n::jsonb IS NULL THEN metadata ELSE (SELECT coalesce(jsonb_object_agg(m.key,
#   m.value), '{}'::jsonb) FROM jsonb_each(metadata || $n::jsonb) AS m
#   WHERE m.value <> 'null'::jsonb) END


class OrganizationRow(msgspec.Struct, frozen=True):
    organization_id: str
    name: str
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime


class FolderRow(msgspec.Struct, frozen=True):
    folder_id: str
    name: str
    parent_folder_id: str | None
    ancestors: list[str]
    access_type: str | None
    inherit_from_parent: bool
    effective_access_type: str
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime


class DocumentRow(msgspec.Struct, frozen=True):
    document_id: str
    name: str
    folder_id: str | None
    access_type: str | None
    # The effective access type of its folder; None when it is in no folder.
    folder_access_type: str | None
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime


async def workspace_of_api_key(conn: Connection | Pool, api_key: str) -> str | None:
    value: str | None = await conn.fetchval(
        "SELECT workspace_id FROM identity.api_key WHERE api_key = $1", api_key
    )
    return value


async def lock_organization(conn: Connection, api_key: str, organization_id: str) -> bool:
    """Serialise changes to the organization's folders and documents until the transaction ends;
    False when it does not exist. Without it, a folder added under a parent that another
    transaction is deleting would outlive its parent. (`NO KEY UPDATE`: rows that merely
    reference the organization, such as grants, are still inserted meanwhile.)"""
    found = await conn.fetchval(
        "SELECT true FROM identity.organization WHERE api_key = $1 AND organization_id = $2"
        " FOR NO KEY UPDATE",
        api_key,
        organization_id,
    )
    return bool(found)


async def hold_organization(conn: Connection, api_key: str, organization_id: str) -> bool:
    """Keep the organization from being deleted until the transaction ends; False when it does
    not exist."""
    found = await conn.fetchval(
        "SELECT true FROM identity.organization WHERE api_key = $1 AND organization_id = $2"
        " FOR KEY SHARE",
        api_key,
        organization_id,
    )
    return bool(found)


async def organization_exists(conn: Connection | Pool, api_key: str, organization_id: str) -> bool:
    found = await conn.fetchval(
        "SELECT true FROM identity.organization WHERE api_key = $1 AND organization_id = $2",
        api_key,
        organization_id,
    )
    return bool(found)
