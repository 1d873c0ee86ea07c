"""SQL of users: profiles (one per API key and user id) and membership at a level, which is an
access grant on that organization, folder or document."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.identity.directory.storage import organization_exists
from redline.identity.directory.user_groups.storage import remove_from_every_group
from redline.pg import Connection, Pool


class Profile(msgspec.Struct, frozen=True):
    """Profile fields to write; None keeps what is stored (or '' for a new user)."""

    user_id: str
    name: str | None = None
    email: str | None = None
    initial: str | None = None
    # Merged into the stored metadata (photoUrl, color, textColor, isAdmin).
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)


class Member(msgspec.Struct, frozen=True):
    user_id: str
    name: str
    email: str
    initial: str
    metadata: dict[str, Any]
    access_role: str


class Level(msgspec.Struct, frozen=True):
    """Where a membership lives: the organization itself, or one folder or document in it."""

    organization_id: str
    resource_type: str  # organization, folder or document
    resource_id: str


# existence ------------------------------------------------------------------------------------


async def resource_exists(conn: Connection | Pool, api_key: str, level: Level) -> bool:
    if level.resource_type == "organization":
        return await organization_exists(conn, api_key, level.organization_id)
    table = "folder" if level.resource_type == "folder" else "document"
    found = await conn.fetchval(
        f"SELECT true FROM identity.{table}"  # noqa: S608 (one of two fixed table names)
        f" WHERE api_key = $1 AND organization_id = $2 AND {table}_id = $3",
        api_key,
        level.organization_id,
        level.resource_id,
    )
    return bool(found)


# profiles -------------------------------------------------------------------------------------


async def upsert_profiles(conn: Connection, api_key: str, profiles: list[Profile]) -> None:
    """Create missing users and overwrite the fields given; one statement for all."""
    if not profiles:
        return
    await conn.execute(
        "INSERT INTO identity.app_user AS u (api_key, user_id, name, email, initial, metadata)"
        " SELECT $1, p.user_id, coalesce(p.name, ''), coalesce(p.email, ''),"
        "        coalesce(p.initial, ''), p.metadata"
        " FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[])"
        "      AS p(user_id, name, email, initial, metadata)"
        # Rows are locked in user id order, so two adds naming the same users cannot deadlock.
        " ORDER BY p.user_id"
        " ON CONFLICT (api_key, user_id) DO UPDATE SET"
        "   name = CASE WHEN $7::text[] @> ARRAY[u.user_id] THEN EXCLUDED.name ELSE u.name END,"
        "   email = CASE WHEN $8::text[] @> ARRAY[u.user_id] THEN EXCLUDED.email ELSE u.email END,"
        "   initial = CASE WHEN $9::text[] @> ARRAY[u.user_id]"
        "                  THEN EXCLUDED.initial ELSE u.initial END,"
        "   metadata = u.metadata || EXCLUDED.metadata,"
        "   updated_at = now()",
        api_key,
        [p.user_id for p in profiles],
        [p.name for p in profiles],
        [p.email for p in profiles],
        [p.initial for p in profiles],
        [p.metadata for p in profiles],
        # Which users set which field: a field left out keeps its stored value.
        [p.user_id for p in profiles if p.name is not None],
        [p.user_id for p in profiles if p.email is not None],
        [p.user_id for p in profiles if p.initial is not None],
    )


async def existing_users(conn: Connection | Pool, api_key: str, user_ids: list[str]) -> set[str]:
    rows = await conn.fetch(
        "SELECT user_id FROM identity.app_user WHERE api_key = $1 AND user_id = ANY($2::text[])",
        api_key,
        user_ids,
    )
    return {r["user_id"] for r in rows}


async def contacts(
    conn: Connection | Pool, api_key: str, user_ids: list[str]
) -> list[tuple[str, str, str]]:
    """(user id, name, email) of the key's users among `user_ids`, in user id order."""
    rows = await conn.fetch(
        "SELECT user_id, name, email FROM identity.app_user"
        " WHERE api_key = $1 AND user_id = ANY($2::text[]) ORDER BY user_id",
        api_key,
        user_ids,
    )
    return [(r["user_id"], r["name"], r["email"]) for r in rows]


# membership -----------------------------------------------------------------------------------


async def add_members(
    conn: Connection, api_key: str, level: Level, roles: dict[str, str | None]
) -> None:
    """Grant each user membership at `level`, permanently. A role of None keeps the role the user
    already holds there (editor for a new member)."""
    await conn.execute(
        "INSERT INTO identity.access_grant AS g"
        " (api_key, organization_id, user_id, resource_type, resource_id, access_role, expires_at)"
        " SELECT $1, $2, m.user_id, $3, $4, coalesce(m.role, old.access_role, 'editor'), NULL"
        " FROM unnest($5::text[], $6::text[]) AS m(user_id, role)"
        " LEFT JOIN identity.access_grant old"
        "   ON old.api_key = $1 AND old.organization_id = $2 AND old.user_id = m.user_id"
        "  AND old.resource_type = $3 AND old.resource_id = $4"
        # Rows are locked in user id order, so two adds naming the same users cannot deadlock.
        " ORDER BY m.user_id"
        " ON CONFLICT (api_key, organization_id, user_id, resource_type, resource_id) DO UPDATE"
        " SET access_role = EXCLUDED.access_role, expires_at = NULL, updated_at = now()",
        api_key,
        level.organization_id,
        level.resource_type,
        level.resource_id,
        list(roles),
        list(roles.values()),
    )


async def update_members(
    conn: Connection, api_key: str, level: Level, roles: dict[str, str | None]
) -> set[str]:
    """Change the role of users who are members at `level` now; returns those found."""
    rows = await conn.fetch(
        "UPDATE identity.access_grant AS g"
        " SET access_role = coalesce(m.role, g.access_role), updated_at = now()"
        " FROM unnest($5::text[], $6::text[]) AS m(user_id, role)"
        " WHERE g.api_key = $1 AND g.organization_id = $2 AND g.resource_type = $3"
        "  AND g.resource_id = $4 AND g.user_id = m.user_id"
        # Only a live grant makes a member; expired ones are kept but never count.
        "  AND (g.expires_at IS NULL OR g.expires_at > now())"
        " RETURNING g.user_id",
        api_key,
        level.organization_id,
        level.resource_type,
        level.resource_id,
        list(roles),
        list(roles.values()),
    )
    return {r["user_id"] for r in rows}


class Scope(msgspec.Struct, frozen=True):
    """The grants a bulk update reaches: in one organization or in all (None), of one resource
    type or of every type (None)."""

    organization_id: str | None
    resource_type: str | None


async def members_in_scope(
    conn: Connection, api_key: str, scope: Scope, user_ids: list[str]
) -> set[tuple[str, str]]:
    """(user id, organization id) of each of `user_ids` holding a live grant in `scope`."""
    rows = await conn.fetch(
        "SELECT DISTINCT g.user_id, g.organization_id FROM identity.access_grant g"
        " WHERE g.api_key = $1 AND g.user_id = ANY($2::text[])"
        "   AND ($3::text IS NULL OR g.organization_id = $3)"
        "   AND ($4::text IS NULL OR g.resource_type = $4)"
        "   AND (g.expires_at IS NULL OR g.expires_at > now())",
        api_key,
        user_ids,
        scope.organization_id,
        scope.resource_type,
    )
    return {(r["user_id"], r["organization_id"]) for r in rows}


async def set_roles_in_scope(
    conn: Connection, api_key: str, scope: Scope, roles: dict[str, str]
) -> None:
    """Give each user the role on every live grant they hold in `scope`, but in a disabled
    organization or on a disabled document, which stay as they are."""
    await conn.execute(
        "UPDATE identity.access_grant AS g SET access_role = m.role, updated_at = now()"
        " FROM unnest($2::text[], $3::text[]) AS m(user_id, role)"
        " WHERE g.api_key = $1 AND g.user_id = m.user_id AND g.access_role <> m.role"
        "   AND ($4::text IS NULL OR g.organization_id = $4)"
        "   AND ($5::text IS NULL OR g.resource_type = $5)"
        "   AND (g.expires_at IS NULL OR g.expires_at > now())"
        "   AND NOT EXISTS (SELECT 1 FROM identity.organization o WHERE o.api_key = g.api_key"
        "        AND o.organization_id = g.organization_id AND o.disabled)"
        "   AND NOT EXISTS (SELECT 1 FROM identity.document d WHERE g.resource_type = 'document'"
        "        AND d.api_key = g.api_key AND d.organization_id = g.organization_id"
        "        AND d.document_id = g.resource_id AND d.disabled)",
        api_key,
        list(roles),
        list(roles.values()),
        scope.organization_id,
        scope.resource_type,
    )


async def remove_members(
    conn: Connection, api_key: str, level: Level, user_ids: list[str]
) -> set[str]:
    """Remove the users' membership at `level`; at organization level every grant they hold in
    the organization goes, and with it their place in its user groups. Returns the users who had
    something to remove."""
    if level.resource_type == "organization":
        rows = await conn.fetch(
            "DELETE FROM identity.access_grant"
            " WHERE api_key = $1 AND organization_id = $2 AND user_id = ANY($3::text[])"
            " RETURNING user_id",
            api_key,
            level.organization_id,
            user_ids,
        )
        await remove_from_every_group(conn, api_key, level.organization_id, user_ids)
    else:
        rows = await conn.fetch(
            "DELETE FROM identity.access_grant"
            " WHERE api_key = $1 AND organization_id = $2 AND resource_type = $3"
            "   AND resource_id = $4 AND user_id = ANY($5::text[])"
            " RETURNING user_id",
            api_key,
            level.organization_id,
            level.resource_type,
            level.resource_id,
            user_ids,
        )
    return {r["user_id"] for r in rows}


async def members_page(
    conn: Connection | Pool,
    api_key: str,
    level: Level,
    user_ids: list[str] | None,
    after_user_id: str,
    limit: int,
    group_ids: list[str] | None = None,
    search: str | None = None,
) -> list[Member]:
    """Members at `level` with a live grant, by user id, after `after_user_id`; only `user_ids`,
    only members of any of the organization's `group_ids`, and only those whose name or email
    holds `search` (any case), when given."""
    rows = await conn.fetch(
        "SELECT u.user_id, u.name, u.email, u.initial, u.metadata, g.access_role"
        " FROM identity.access_grant g"
        " JOIN identity.app_user u ON u.api_key = g.api_key AND u.user_id = g.user_id"
        " WHERE g.api_key = $1 AND g.organization_id = $2 AND g.resource_type = $3"
        "   AND g.resource_id = $4 AND (g.expires_at IS NULL OR g.expires_at > now())"
        "   AND ($5::text[] IS NULL OR g.user_id = ANY($5::text[]))"
        "   AND g.user_id > $6"
        "   AND ($8::text[] IS NULL OR EXISTS (SELECT 1 FROM identity.user_group_member m"
        "        WHERE m.api_key = g.api_key AND m.organization_id = g.organization_id"
        "          AND m.user_id = g.user_id AND m.group_id = ANY($8::text[])))"
        "   AND ($9::text IS NULL OR strpos(lower(coalesce(u.name, '')), lower($9)) > 0"
        "        OR strpos(lower(coalesce(u.email, '')), lower($9)) > 0)"
        " ORDER BY g.user_id LIMIT $7",
        api_key,
        level.organization_id,
        level.resource_type,
        level.resource_id,
        user_ids,
        after_user_id,
        limit,
        group_ids,
        search,
    )
    return [
        Member(r["user_id"], r["name"], r["email"], r["initial"], r["metadata"], r["access_role"])
        for r in rows
    ]


# counts and document-level users --------------------------------------------------------------


async def count_members(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    resource_type: str,
    resource_id: str | None,
    user_id: str | None,
) -> int:
    """Distinct users with a live grant of `resource_type` in the organization: on
    `resource_id`, or on any resource of the type when it is None; only `user_id` if given."""
    found: int = await conn.fetchval(
        "SELECT count(DISTINCT g.user_id) FROM identity.access_grant g"
        " WHERE g.api_key = $1 AND g.organization_id = $2 AND g.resource_type = $3"
        "   AND ($4::text IS NULL OR g.resource_id = $4)"
        "   AND (g.expires_at IS NULL OR g.expires_at > now())"
        "   AND ($5::text IS NULL OR g.user_id = $5)",
        api_key,
        organization_id,
        resource_type,
        resource_id,
        user_id,
    )
    return found


async def document_users_page(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    user_ids: list[str] | None,
    after_user_id: str,
    limit: int,
) -> list[Member]:
    """Users with a live grant on some document of the organization, by user id, after
    `after_user_id`, with their profile (empty where none was stored). No role: `access_role`
    is ''."""
    rows = await conn.fetch(
        "SELECT g.user_id, coalesce(u.name, '') AS name, coalesce(u.email, '') AS email,"
        " coalesce(u.initial, '') AS initial, coalesce(u.metadata, '{}') AS metadata"
        " FROM (SELECT DISTINCT g.user_id FROM identity.access_grant g"
        "   WHERE g.api_key = $1 AND g.organization_id = $2 AND g.resource_type = 'document'"
        "   AND (g.expires_at IS NULL OR g.expires_at > now())"
        "   AND ($3::text[] IS NULL OR g.user_id = ANY($3::text[])) AND g.user_id > $4) g"
        " LEFT JOIN identity.app_user u ON u.api_key = $1 AND u.user_id = g.user_id"
        " ORDER BY g.user_id LIMIT $5",
        api_key,
        organization_id,
        user_ids,
        after_user_id,
        limit,
    )
    return [
        Member(r["user_id"], r["name"], r["email"], r["initial"], r["metadata"], "") for r in rows
    ]


async def document_grants(
    conn: Connection | Pool, api_key: str, organization_id: str, user_ids: list[str]
) -> dict[str, list[tuple[str, str]]]:
    """Each user's live document grants in the organization: (document id, role), by id."""
    rows = await conn.fetch(
        "SELECT g.user_id, g.resource_id, g.access_role FROM identity.access_grant g"
        " WHERE g.api_key = $1 AND g.organization_id = $2 AND g.resource_type = 'document'"
        "   AND g.user_id = ANY($3::text[]) AND (g.expires_at IS NULL OR g.expires_at > now())"
        " ORDER BY g.user_id, g.resource_id",
        api_key,
        organization_id,
        user_ids,
    )
    grants: dict[str, list[tuple[str, str]]] = {}
    for r in rows:
        grants.setdefault(r["user_id"], []).append((r["resource_id"], r["access_role"]))
    return grants
