"""SQL of invitations: one row per address and place (organization, folder or document) in an
API key's organization, found by its link's token digest or by what the caller names."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from redline.pg import Connection, Pool


class InvitationRow(msgspec.Struct, frozen=True):
    id: str
    api_key: str
    organization_id: str
    invite_type: str
    resource_id: str
    email: str
    organization_name: str
    resource_name: str
    invited_by: dict[str, Any] | None
    status: str
    user_id: str | None
    token_expires_at: datetime
    created_at: datetime
    updated_at: datetime
    responded_at: datetime | None
    seq: int
    # Whether the link has expired, by the database's clock.
    expired: bool


class NewInvitation(msgspec.Struct, frozen=True):
    id: str
    api_key: str
    organization_id: str
    invite_type: str
    resource_id: str
    email: str
    organization_name: str | None
    resource_name: str | None
    invited_by: dict[str, Any] | None


_COLUMNS = (
    "id, api_key, organization_id, invite_type, resource_id, email, organization_name,"
    " resource_name, invited_by, status, user_id, token_expires_at, created_at, updated_at,"
    " responded_at, seq, token_expires_at <= now() AS expired"
)


def _row(record: asyncpg.Record) -> InvitationRow:
    return InvitationRow(**dict(record))


async def upsert_invitation(
    conn: Connection, new: NewInvitation, token_hash: bytes, ttl_s: int
) -> InvitationRow:
    """Invite, or invite again: an invitation of the same address to the same place becomes
    pending once more with a new link (the old link stops working); names left out keep theirs."""
    record = await conn.fetchrow(
        "INSERT INTO identity.invitation AS i (id, api_key, organization_id, invite_type,"  # noqa: S608
        " resource_id, email, organization_name, resource_name, invited_by, token_hash,"
        " token_expires_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, coalesce($7, ''), coalesce($8, ''), $9, $10,"
        "         now() + make_interval(secs => $11))"
        " ON CONFLICT (api_key, organization_id, invite_type, resource_id, email) DO UPDATE SET"
        "   organization_name = coalesce($7, i.organization_name),"
        "   resource_name = coalesce($8, i.resource_name),"
        "   invited_by = coalesce($9, i.invited_by),"
        "   status = 'PENDING', user_id = NULL, responded_at = NULL,"
        "   token_hash = EXCLUDED.token_hash, token_expires_at = EXCLUDED.token_expires_at,"
        "   updated_at = now()"
        f" RETURNING {_COLUMNS}",
        new.id,
        new.api_key,
        new.organization_id,
        new.invite_type,
        new.resource_id,
        new.email,
        new.organization_name,
        new.resource_name,
        new.invited_by,
        token_hash,
        float(ttl_s),
    )
    assert record is not None
    return _row(record)


async def lock_named(
    conn: Connection,
    api_key: str,
    organization_id: str,
    invite_type: str,
    resource_id: str,
    email: str,
) -> InvitationRow | None:
    record = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM identity.invitation"  # noqa: S608
        " WHERE api_key = $1 AND organization_id = $2 AND invite_type = $3"
        " AND resource_id = $4 AND email = $5 FOR UPDATE",
        api_key,
        organization_id,
        invite_type,
        resource_id,
        email,
    )
    return None if record is None else _row(record)


async def by_token(
    conn: Connection | Pool, token_hash: bytes, *, lock: bool = False
) -> InvitationRow | None:
    """The invitation whose latest link has this token (an invitation made again has a new
    one)."""
    record = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM identity.invitation WHERE token_hash = $1"  # noqa: S608
        + (" FOR UPDATE" if lock else ""),
        token_hash,
    )
    return None if record is None else _row(record)


async def answer(
    conn: Connection, invitation_id: str, status: str, user_id: str | None
) -> InvitationRow:
    """Record the answer; the link stops working (its digest stays, to say it was used)."""
    record = await conn.fetchrow(
        "UPDATE identity.invitation SET status = $2, user_id = $3,"  # noqa: S608
        " responded_at = now(), updated_at = now()"
        f" WHERE id = $1 RETURNING {_COLUMNS}",
        invitation_id,
        status,
        user_id,
    )
    assert record is not None
    return _row(record)


async def page(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    *,
    email: str | None,
    status: str | None,
    invite_type: str | None,
    after_seq: int,
    limit: int,
) -> list[InvitationRow]:
    """Invitations of the organization in the order they were first made, after `after_seq`;
    each filter left as None matches everything."""
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM identity.invitation"  # noqa: S608
        " WHERE api_key = $1 AND organization_id = $2 AND seq > $3"
        " AND ($4::text IS NULL OR email = $4) AND ($5::text IS NULL OR status = $5)"
        " AND ($6::text IS NULL OR invite_type = $6)"
        " ORDER BY seq LIMIT $7",
        api_key,
        organization_id,
        after_seq,
        email,
        status,
        invite_type,
        limit,
    )
    return [_row(r) for r in records]


async def pending_count(
    conn: Connection | Pool, api_key: str, organization_id: str, invite_type: str
) -> int:
    count = await conn.fetchval(
        "SELECT count(*) FROM identity.invitation WHERE api_key = $1 AND organization_id = $2"
        " AND invite_type = $3 AND status = 'PENDING'",
        api_key,
        organization_id,
        invite_type,
    )
    return int(count)


async def user_with_email(conn: Connection, api_key: str, email: str) -> str | None:
    """The one user of the API key with this address (any case); None for none or several."""
    rows = await conn.fetch(
        "SELECT user_id FROM identity.app_user WHERE api_key = $1 AND lower(email) = $2 LIMIT 2",
        api_key,
        email,
    )
    return rows[0]["user_id"] if len(rows) == 1 else None


class WorkspaceSender(msgspec.Struct, frozen=True):
    """The key's workspace, as its invitations name it: its name, and its owner's address when
    a login link proved the owner reads it."""

    name: str
    verified_owner_email: str | None


async def workspace_sender(conn: Connection, api_key: str) -> WorkspaceSender:
    row = await conn.fetchrow(
        "SELECT w.name, v.email AS verified_owner_email FROM identity.api_key k"
        " JOIN identity.workspace w ON w.id = k.workspace_id"
        " LEFT JOIN identity.verified_email v ON v.email = lower(w.owner_email)"
        " WHERE k.api_key = $1",
        api_key,
    )
    if row is None:
        return WorkspaceSender("", None)
    return WorkspaceSender(row["name"], row["verified_owner_email"])
