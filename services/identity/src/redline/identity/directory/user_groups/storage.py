"""SQL of organization user groups and their members. A member counts while they are a member of
the group's organization: a live organization-level grant, as users/get of the organization
lists them."""

from __future__ import annotations

import msgspec

from redline.pg import Connection, Pool


class SavedGroup(msgspec.Struct, frozen=True):
    group_id: str
    id: str
    created: bool  # False: it existed, and was renamed when a name was given


class GroupMember(msgspec.Struct, frozen=True):
    group_id: str
    user_id: str
    name: str
    email: str


# A live organization-level grant of `m.user_id` in the group's organization.
_IN_ORGANIZATION = (
    "EXISTS (SELECT 1 FROM identity.access_grant g"
    " WHERE g.api_key = m.api_key AND g.organization_id = m.organization_id"
    "   AND g.user_id = m.user_id AND g.resource_type = 'organization'"
    "   AND g.resource_id = m.organization_id"
    "   AND (g.expires_at IS NULL OR g.expires_at > now()))"
)


async def save_groups(
    conn: Connection, api_key: str, organization_id: str, names: dict[str, str | None]
) -> list[SavedGroup]:
    """Create the groups (group id -> name); an existing one keeps its id and takes the name
    given (a name of None keeps its own)."""
    rows = await conn.fetch(
        "INSERT INTO identity.user_group AS ug (api_key, organization_id, group_id, name)"
        " SELECT $1, $2, n.group_id, coalesce(n.name, '')"
        " FROM unnest($3::text[], $4::text[]) AS n(group_id, name)"
        " ON CONFLICT (api_key, organization_id, group_id) DO UPDATE"
        " SET name = CASE WHEN $5::text[] @> ARRAY[ug.group_id] THEN EXCLUDED.name ELSE ug.name"
        "     END, updated_at = now()"
        " RETURNING ug.group_id, ug.id, (xmax = 0) AS created",
        api_key,
        organization_id,
        list(names),
        list(names.values()),
        # Which groups were given a name: the others keep theirs.
        [group_id for group_id, name in names.items() if name is not None],
    )
    return [SavedGroup(r["group_id"], r["id"], r["created"]) for r in rows]


async def lock_group(conn: Connection, api_key: str, organization_id: str, group_id: str) -> bool:
    """Hold the group for this transaction's changes to its members; False when it is missing."""
    found = await conn.fetchval(
        "SELECT true FROM identity.user_group"
        " WHERE api_key = $1 AND organization_id = $2 AND group_id = $3 FOR NO KEY UPDATE",
        api_key,
        organization_id,
        group_id,
    )
    return bool(found)


async def organization_members(
    conn: Connection, api_key: str, organization_id: str, user_ids: list[str]
) -> set[str]:
    """Those of `user_ids` who are members of the organization now."""
    rows = await conn.fetch(
        "SELECT m.user_id FROM (SELECT $1::text AS api_key, $2::text AS organization_id,"  # noqa: S608 (a fixed fragment)
        " unnest($3::text[]) AS user_id) AS m WHERE " + _IN_ORGANIZATION,
        api_key,
        organization_id,
        user_ids,
    )
    return {r["user_id"] for r in rows}


async def add_members(
    conn: Connection, api_key: str, organization_id: str, group_id: str, user_ids: list[str]
) -> None:
    await conn.execute(
        "INSERT INTO identity.user_group_member (api_key, organization_id, group_id, user_id)"
        " SELECT $1, $2, $3, unnest($4::text[]) ON CONFLICT DO NOTHING",
        api_key,
        organization_id,
        group_id,
        user_ids,
    )


async def remove_members(
    conn: Connection,
    api_key: str,
    organization_id: str,
    group_id: str,
    user_ids: list[str] | None,
) -> list[str]:
    """Remove the users from the group (every member when `user_ids` is None); returns those
    who were in it, in user id order."""
    rows = await conn.fetch(
        "DELETE FROM identity.user_group_member"
        " WHERE api_key = $1 AND organization_id = $2 AND group_id = $3"
        "   AND ($4::text[] IS NULL OR user_id = ANY($4::text[]))"
        " RETURNING user_id",
        api_key,
        organization_id,
        group_id,
        user_ids,
    )
    return sorted(r["user_id"] for r in rows)


async def remove_from_every_group(
    conn: Connection, api_key: str, organization_id: str, user_ids: list[str]
) -> None:
    """The users left the organization: they leave its groups too."""
    await conn.execute(
        "DELETE FROM identity.user_group_member"
        " WHERE api_key = $1 AND organization_id = $2 AND user_id = ANY($3::text[])",
        api_key,
        organization_id,
        user_ids,
    )


async def members_of_groups(
    conn: Connection | Pool, api_key: str, organization_id: str, group_ids: list[str]
) -> list[GroupMember]:
    """The members of each of the groups who are members of the organization now, with their
    profiles, by group and then user id. Groups that do not exist have none."""
    rows = await conn.fetch(
        "SELECT m.group_id, m.user_id, coalesce(u.name, '') AS name,"  # noqa: S608 (a fixed fragment)
        "       coalesce(u.email, '') AS email"
        " FROM identity.user_group_member m"
        " LEFT JOIN identity.app_user u ON u.api_key = m.api_key AND u.user_id = m.user_id"
        " WHERE m.api_key = $1 AND m.organization_id = $2 AND m.group_id = ANY($3::text[])"
        "   AND " + _IN_ORGANIZATION + " ORDER BY m.group_id, m.user_id",
        api_key,
        organization_id,
        group_ids,
    )
    return [GroupMember(r["group_id"], r["user_id"], r["name"], r["email"]) for r in rows]
