"""SQL of login links (`login_link`, by token digest) and verified owner addresses."""

from __future__ import annotations

from datetime import datetime

import msgspec

from redline.pg import Connection, Pool


class LoginLink(msgspec.Struct, frozen=True):
    email: str
    continue_url: str
    expires_at: datetime
    used_at: datetime | None
    # Whether it has expired, by the database's clock.
    expired: bool


async def owner_exists(conn: Connection | Pool, email: str) -> bool:
    found = await conn.fetchval(
        "SELECT true FROM identity.workspace WHERE lower(owner_email) = $1 LIMIT 1", email
    )
    return bool(found)


async def is_verified(conn: Connection | Pool, email: str) -> bool:
    found = await conn.fetchval("SELECT true FROM identity.verified_email WHERE email = $1", email)
    return bool(found)


async def insert_link(
    conn: Connection, token_hash: bytes, email: str, continue_url: str, ttl_s: int
) -> None:
    # Links long past their expiry go as new ones come: nothing else reads them.
    await conn.execute(
        "DELETE FROM identity.login_link WHERE expires_at < now() - interval '1 day'"
    )
    await conn.execute(
        "INSERT INTO identity.login_link (token_hash, email, continue_url, expires_at)"
        " VALUES ($1, $2, $3, now() + make_interval(secs => $4))",
        token_hash,
        email,
        continue_url,
        float(ttl_s),
    )


_LINK_COLUMNS = "email, continue_url, expires_at, used_at, expires_at <= now() AS expired"


async def find_link(conn: Connection | Pool, token_hash: bytes) -> LoginLink | None:
    row = await conn.fetchrow(
        f"SELECT {_LINK_COLUMNS} FROM identity.login_link WHERE token_hash = $1",  # noqa: S608
        token_hash,
    )
    return None if row is None else LoginLink(**dict(row))


async def use_link(conn: Connection, token_hash: bytes) -> LoginLink | None:
    """Mark the link used if it is live and unused; None otherwise (one use, even when two
    requests race for it)."""
    row = await conn.fetchrow(
        "UPDATE identity.login_link SET used_at = now()"  # noqa: S608
        " WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()"
        f" RETURNING {_LINK_COLUMNS}",
        token_hash,
    )
    return None if row is None else LoginLink(**dict(row))


async def mark_verified(conn: Connection, email: str) -> None:
    await conn.execute(
        "INSERT INTO identity.verified_email (email) VALUES ($1) ON CONFLICT (email) DO NOTHING",
        email,
    )
