"""SQL of organizations. Deleting one takes its folders, documents and grants along (FK cascade)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from redline.pg import Connection, Pool


class OrganizationRow(msgspec.Struct, frozen=True):
    organization_id: str
    name: str
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    disabled: bool


def _row(r: asyncpg.Record) -> OrganizationRow:
    return OrganizationRow(
        r["organization_id"],
        r["name"],
        r["metadata"],
        r["created_at"],
        r["updated_at"],
        r["disabled"],
    )


async def insert_organization(
    conn: Connection, api_key: str, organization_id: str, name: str, metadata: dict[str, Any]
) -> bool:
    """False when it exists already. (A conflict is an outcome here, not an error: the other
    items of the same request go on in the same transaction.)"""
    inserted = await conn.fetchval(
        "INSERT INTO identity.organization (api_key, organization_id, name, metadata)"
        " VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING true",
        api_key,
        organization_id,
        name,
        metadata,
    )
    return bool(inserted)


async def update_organization(
    conn: Connection,
    api_key: str,
    organization_id: str,
    name: str | None,
    metadata_patch: dict[str, Any] | None,
) -> OrganizationRow | None:
    row = await conn.fetchrow(
        "UPDATE identity.organization SET name = coalesce($3, name),"
        " metadata = CASE WHEN $4::jsonb IS NULL THEN metadata ELSE"
        " (SELECT coalesce(jsonb_object_agg(m.key, m.value), '{}'::jsonb)"
        " FROM jsonb_each(metadata || $4::jsonb) AS m WHERE m.value <> 'null'::jsonb) END,"
        " updated_at = now() WHERE api_key = $1 AND organization_id = $2"
        " RETURNING organization_id, name, metadata, created_at, updated_at, disabled",
        api_key,
        organization_id,
        name,
        metadata_patch,
    )
    return None if row is None else _row(row)


async def delete_organization(conn: Connection, api_key: str, organization_id: str) -> bool:
    status = await conn.execute(
        "DELETE FROM identity.organization WHERE api_key = $1 AND organization_id = $2",
        api_key,
        organization_id,
    )
    return bool(status != "DELETE 0")


async def organizations_page(
    conn: Connection | Pool,
    api_key: str,
    organization_ids: list[str] | None,
    after: str | None,
    limit: int,
) -> list[OrganizationRow]:
    """In id order, after the id `after` (exclusive); only `organization_ids` when given."""
    rows = await conn.fetch(
        "SELECT organization_id, name, metadata, created_at, updated_at, disabled"
        " FROM identity.organization WHERE api_key = $1"
        " AND ($2::text[] IS NULL OR organization_id = ANY($2::text[]))"
        " AND ($3::text IS NULL OR organization_id > $3)"
        " ORDER BY organization_id LIMIT $4",
        api_key,
        organization_ids,
        after,
        limit,
    )
    return [_row(r) for r in rows]
