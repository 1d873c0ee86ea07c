"""SQL of users/get with `allDocuments`: the users with a live grant on some document of an
organization, once each or once per document, narrowed as users/get narrows members."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.identity.users.storage import Member
from redline.pg import Connection, Pool

# Users with a live grant on some document of organization $2, narrowed like members_page:
# $3 user ids, $4 organization user groups, $5 a search of names and emails.
_DOCUMENT_MEMBERS = (
    " FROM identity.access_grant g"
    " JOIN identity.app_user u ON u.api_key = g.api_key AND u.user_id = g.user_id"
    " WHERE g.api_key = $1 AND g.organization_id = $2 AND g.resource_type = 'document'"
    "   AND (g.expires_at IS NULL OR g.expires_at > now())"
    "   AND ($3::text[] IS NULL OR g.user_id = ANY($3::text[]))"
    "   AND ($4::text[] IS NULL OR EXISTS (SELECT 1 FROM identity.user_group_member m"
    "        WHERE m.api_key = g.api_key AND m.organization_id = g.organization_id"
    "          AND m.user_id = g.user_id AND m.group_id = ANY($4::text[])))"
    "   AND ($5::text IS NULL OR strpos(lower(coalesce(u.name, '')), lower($5)) > 0"
    "        OR strpos(lower(coalesce(u.email, '')), lower($5)) > 0)"
)


class DocumentMember(msgspec.Struct, frozen=True):
    document_id: str
    member: Member


async def document_members_page(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    narrowing: tuple[list[str] | None, list[str] | None, str | None],
    after: tuple[str, str],
    limit: int,
) -> list[DocumentMember]:
    """Each live document grant in the organization with its user, by document id then user id,
    after `after` (document id, user id). `narrowing`: user ids, group ids, search."""
    rows = await conn.fetch(
        "SELECT g.resource_id, u.user_id, u.name, u.email, u.initial, u.metadata, g.access_role"
        + _DOCUMENT_MEMBERS
        + " AND (g.resource_id, g.user_id) > ($6, $7) ORDER BY g.resource_id, g.user_id LIMIT $8",
        api_key,
        organization_id,
        *narrowing,
        *after,
        limit,
    )
    return [DocumentMember(r["resource_id"], _member(r)) for r in rows]


async def document_users_narrowed(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    narrowing: tuple[list[str] | None, list[str] | None, str | None],
    after_user_id: str,
    limit: int,
) -> list[Member]:
    """Users with a live grant on some document of the organization, once each, by user id,
    after `after_user_id`; no role (`access_role` is '')."""
    rows = await conn.fetch(
        "SELECT DISTINCT ON (g.user_id) u.user_id, u.name, u.email, u.initial, u.metadata,"
        " '' AS access_role"
        + _DOCUMENT_MEMBERS
        + " AND g.user_id > $6 ORDER BY g.user_id LIMIT $7",
        api_key,
        organization_id,
        *narrowing,
        after_user_id,
        limit,
    )
    return [_member(r) for r in rows]


def _member(r: Any) -> Member:
    return Member(
        r["user_id"], r["name"], r["email"], r["initial"], r["metadata"], r["access_role"]
    )
