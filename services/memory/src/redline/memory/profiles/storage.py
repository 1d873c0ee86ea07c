"""The SQL of a reviewer's profile: their judgments counted by decision side, content type,
organization and hour of the day."""

from __future__ import annotations

import msgspec

from redline.memory.judgments.verdicts import APPROVING, REJECTING
from redline.pg import Connection

_SIDES = """
    count(*) AS judgments,
    count(*) FILTER (WHERE decision = ANY($3)) AS approvals,
    count(*) FILTER (WHERE decision = ANY($4)) AS rejections
"""
_MINE = "api_key = $1 AND reviewer_id = $2"


class Totals(msgspec.Struct, kw_only=True):
    judgments: int
    approvals: int
    rejections: int
    last_active: int | None
    name: str | None
    email: str | None


class ByContentType(msgspec.Struct, kw_only=True):
    content_type: str
    judgments: int
    approvals: int
    rejections: int
    recent_approvals: int
    recent_rejections: int
    older_approvals: int
    older_rejections: int


class ByOrganization(msgspec.Struct, kw_only=True):
    organization_id: str
    judgments: int
    approvals: int
    rejections: int


async def totals(conn: Connection, api_key: str, reviewer_id: str) -> Totals:
    record = await conn.fetchrow(
        f"""
        SELECT {_SIDES}, max(created_at) AS last_active,
          (SELECT action_user->>'name' FROM memory.judgment WHERE {_MINE}
            AND action_user ? 'name' ORDER BY created_at DESC LIMIT 1) AS name,
          (SELECT action_user->>'email' FROM memory.judgment WHERE {_MINE}
            AND action_user ? 'email' ORDER BY created_at DESC LIMIT 1) AS email
        FROM memory.judgment WHERE {_MINE}
        """,  # noqa: S608 (this module's fragments)
        api_key,
        reviewer_id,
        list(APPROVING),
        list(REJECTING),
    )
    return msgspec.convert(dict(record or {}), Totals)


async def by_content_type(
    conn: Connection, api_key: str, reviewer_id: str, recent_from: int, older_from: int
) -> list[ByContentType]:
    """Per content type, most judged first; `recent_` counts those since `recent_from`,
    `older_` those from `older_from` until then."""
    records = await conn.fetch(
        f"""
        SELECT content_type, {_SIDES},
          count(*) FILTER (WHERE decision = ANY($3) AND created_at >= $5) AS recent_approvals,
          count(*) FILTER (WHERE decision = ANY($4) AND created_at >= $5) AS recent_rejections,
          count(*) FILTER (WHERE decision = ANY($3) AND created_at >= $6 AND created_at < $5)
            AS older_approvals,
          count(*) FILTER (WHERE decision = ANY($4) AND created_at >= $6 AND created_at < $5)
            AS older_rejections
        FROM memory.judgment WHERE {_MINE} AND content_type IS NOT NULL
        GROUP BY content_type ORDER BY judgments DESC, content_type
        """,  # noqa: S608
        api_key,
        reviewer_id,
        list(APPROVING),
        list(REJECTING),
        recent_from,
        older_from,
    )
    return [msgspec.convert(dict(r), ByContentType) for r in records]


async def by_organization(conn: Connection, api_key: str, reviewer_id: str) -> list[ByOrganization]:
    records = await conn.fetch(
        f"""
        SELECT organization_id, {_SIDES}
        FROM memory.judgment WHERE {_MINE} AND organization_id IS NOT NULL
        GROUP BY organization_id ORDER BY judgments DESC, organization_id
        """,  # noqa: S608
        api_key,
        reviewer_id,
        list(APPROVING),
        list(REJECTING),
    )
    return [msgspec.convert(dict(r), ByOrganization) for r in records]


async def busiest_hours(conn: Connection, api_key: str, reviewer_id: str, limit: int) -> list[int]:
    """The UTC hours of the day in which the reviewer decided most, busiest first."""
    records = await conn.fetch(
        f"""
        SELECT (created_at / 3600000) % 24 AS hour, count(*) AS n
        FROM memory.judgment WHERE {_MINE}
        GROUP BY hour ORDER BY n DESC, hour LIMIT $3
        """,  # noqa: S608
        api_key,
        reviewer_id,
        limit,
    )
    return [int(r["hour"]) for r in records]
