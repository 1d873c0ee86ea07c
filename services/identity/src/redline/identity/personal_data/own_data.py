"""What identity itself holds about a user, as personal data export and erasure see it: the
profile (`users`), organization memberships (`memberships`) and folder and document grants
(`permissions`).

Erasure deletes the user's grants in the job's organizations, and the profile once the user
belongs nowhere any more (the profile is per API key, not per organization). Services that
cached the user's access hear `identity.access.changed` for every organization touched.
"""

from __future__ import annotations

from typing import Any

from redline.identity.schema import SCHEMA
from redline.pg import Connection, write_events
from redline.proto.events import AccessChanged
from redline.runtime.personal_data import DataKind, Subject

_GRANTS = """
SELECT organization_id, resource_type, resource_id, access_role,
       (extract(epoch FROM expires_at) * 1000)::bigint AS expires_at,
       (extract(epoch FROM created_at) * 1000)::bigint AS created_at
FROM identity.access_grant
WHERE api_key = $1 AND user_id = $2 AND ($3::text[] IS NULL OR organization_id = ANY($3))
  AND (resource_type = 'organization') = $4
ORDER BY organization_id, resource_type, resource_id
OFFSET $5 LIMIT $6
"""


async def export_profile(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    record = await conn.fetchrow(
        "SELECT user_id, name, email, initial, metadata,"
        " (extract(epoch FROM created_at) * 1000)::bigint AS created_at,"
        " (extract(epoch FROM updated_at) * 1000)::bigint AS updated_at"
        " FROM identity.app_user WHERE api_key = $1 AND user_id = $2",
        subject.api_key,
        subject.user_id,
    )
    if record is None or offset > 0:
        return []
    return [
        {
            "userId": record["user_id"],
            "name": record["name"],
            "email": record["email"],
            "initial": record["initial"],
            "metadata": record["metadata"],
            "createdAt": record["created_at"],
            "updatedAt": record["updated_at"],
        }
    ]


async def _grants(
    conn: Connection, subject: Subject, memberships: bool, offset: int, limit: int
) -> list[dict[str, Any]]:
    records = await conn.fetch(
        _GRANTS,
        subject.api_key,
        subject.user_id,
        subject.organization_scope,
        memberships,
        offset,
        limit,
    )
    return [
        {
            "organizationId": r["organization_id"],
            "resourceType": r["resource_type"],
            "resourceId": r["resource_id"],
            "accessRole": r["access_role"],
            "expiresAt": r["expires_at"],
            "createdAt": r["created_at"],
        }
        for r in records
    ]


async def export_memberships(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    return await _grants(conn, subject, True, offset, limit)


async def export_permissions(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    return await _grants(conn, subject, False, offset, limit)


async def erase_user(conn: Connection, subject: Subject) -> int:
    organizations = await conn.fetch(
        "DELETE FROM identity.access_grant WHERE api_key = $1 AND user_id = $2"
        " AND ($3::text[] IS NULL OR organization_id = ANY($3)) RETURNING organization_id",
        subject.api_key,
        subject.user_id,
        subject.organization_scope,
    )
    profile = await conn.execute(
        "DELETE FROM identity.app_user u WHERE api_key = $1 AND user_id = $2 AND NOT EXISTS"
        " (SELECT 1 FROM identity.access_grant g WHERE g.api_key = $1 AND g.user_id = $2)",
        subject.api_key,
        subject.user_id,
    )
    touched = sorted({r["organization_id"] for r in organizations})
    if touched:
        await write_events(
            conn,
            SCHEMA,
            [
                AccessChanged(
                    workspaceId=subject.workspace_id, apiKey=subject.api_key, organizationId=org
                )
                for org in touched
            ],
        )
    return len(organizations) + int(profile.split()[-1])


IDENTITY_KINDS = [
    DataKind("users", export_profile, erase_user),
    # Erased with the profile, by `erase_user`.
    DataKind("memberships", export_memberships),
    DataKind("permissions", export_permissions),
]
