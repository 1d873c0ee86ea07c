"""SQL of workspaces, API keys and their auth tokens, including what credential checks read.
Returns Structs; never raises asyncpg errors upward."""

from __future__ import annotations

from datetime import datetime

import asyncpg
import msgspec

from redline.envelope.errors import AlreadyExists
from redline.pg import Connection, Pool


class WorkspaceRow(msgspec.Struct, frozen=True):
    id: str
    name: str
    owner_id: str
    owner_email: str
    owner_name: str
    owner_avatar: str
    token_sealed: bytes


class ApiKeyRow(msgspec.Struct, frozen=True):
    api_key: str
    workspace_id: str
    name: str
    key_type: str
    seq: int


class TokenRow(msgspec.Struct, frozen=True):
    id: int
    name: str
    token_sealed: bytes


class NewWorkspace(msgspec.Struct, frozen=True):
    id: str
    name: str
    owner_id: str
    owner_email: str
    owner_name: str
    owner_avatar: str
    token_hash: bytes
    token_sealed: bytes


def _workspace(row: asyncpg.Record) -> WorkspaceRow:
    return WorkspaceRow(
        row["id"],
        row["name"],
        row["owner_id"],
        row["owner_email"],
        row["owner_name"],
        row["owner_avatar"],
        bytes(row["token_sealed"]),
    )


def _api_key(row: asyncpg.Record) -> ApiKeyRow:
    return ApiKeyRow(row["api_key"], row["workspace_id"], row["name"], row["key_type"], row["seq"])


async def insert_workspace(conn: Connection, ws: NewWorkspace) -> None:
    try:
        await conn.execute(
            "INSERT INTO identity.workspace (id, name, owner_id, owner_email, owner_name,"
            " owner_avatar, token_hash, token_sealed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            ws.id,
            ws.name,
            ws.owner_id,
            ws.owner_email,
            ws.owner_name,
            ws.owner_avatar,
            ws.token_hash,
            ws.token_sealed,
        )
    except asyncpg.UniqueViolationError:
        raise AlreadyExists("A workspace with this id already exists.") from None


async def workspace_with_keys(
    conn: Connection | Pool, workspace_id: str
) -> tuple[WorkspaceRow, list[ApiKeyRow]] | None:
    """The workspace and all its API keys, in one round trip."""
    row = await conn.fetchrow(
        "SELECT w.id, w.name, w.owner_id, w.owner_email, w.owner_name, w.owner_avatar,"
        " w.token_sealed, coalesce(array_agg(ARRAY[k.api_key, k.name, k.key_type]"
        " ORDER BY k.seq) FILTER (WHERE k.api_key IS NOT NULL), '{}') AS keys"
        " FROM identity.workspace w LEFT JOIN identity.api_key k ON k.workspace_id = w.id"
        " WHERE w.id = $1 GROUP BY w.id",
        workspace_id,
    )
    if row is None:
        return None
    keys = [ApiKeyRow(k[0], workspace_id, k[1], k[2], 0) for k in row["keys"]]
    return _workspace(row), keys


async def workspace_token_hash(conn: Connection | Pool, workspace_id: str) -> bytes | None:
    value: bytes | None = await conn.fetchval(
        "SELECT token_hash FROM identity.workspace WHERE id = $1", workspace_id
    )
    return value


async def lock_key_count(conn: Connection, workspace_id: str) -> int:
    """How many API keys the workspace holds, its row locked until the transaction ends, so
    keys made at the same time are counted one after another."""
    await conn.execute("SELECT 1 FROM identity.workspace WHERE id = $1 FOR UPDATE", workspace_id)
    # A statement of its own: its snapshot sees the keys of whoever held the lock before.
    count: int = await conn.fetchval(
        "SELECT count(*) FROM identity.api_key WHERE workspace_id = $1", workspace_id
    )
    return count


async def insert_api_key(
    conn: Connection,
    *,
    api_key: str,
    workspace_id: str,
    name: str,
    key_type: str,
    domains: list[str],
) -> None:
    try:
        await conn.execute(
            "INSERT INTO identity.api_key (api_key, workspace_id, name, key_type)"
            " VALUES ($1, $2, $3, $4)",
            api_key,
            workspace_id,
            name,
            key_type,
        )
    except asyncpg.UniqueViolationError:
        raise AlreadyExists("An API key with this id already exists.") from None
    if domains:
        await conn.executemany(
            "INSERT INTO identity.allowed_domain (api_key, domain) VALUES ($1, $2)"
            " ON CONFLICT DO NOTHING",
            [(api_key, d) for d in domains],
        )


async def api_key_of_workspace(
    conn: Connection | Pool, workspace_id: str, api_key: str
) -> ApiKeyRow | None:
    row = await conn.fetchrow(
        "SELECT api_key, workspace_id, name, key_type, seq FROM identity.api_key"
        " WHERE api_key = $1 AND workspace_id = $2",
        api_key,
        workspace_id,
    )
    return None if row is None else _api_key(row)


async def workspace_of_api_key(conn: Connection | Pool, api_key: str) -> str | None:
    value: str | None = await conn.fetchval(
        "SELECT workspace_id FROM identity.api_key WHERE api_key = $1", api_key
    )
    return value


async def api_keys_page(
    conn: Connection | Pool,
    workspace_id: str,
    after_seq: int,
    limit: int,
    only: list[str] | None = None,
) -> list[ApiKeyRow]:
    """The workspace's keys after `after_seq`, in creation order; `only` those keys, if given."""
    rows = await conn.fetch(
        "SELECT api_key, workspace_id, name, key_type, seq FROM identity.api_key"
        " WHERE workspace_id = $1 AND seq > $2 AND ($4::text[] IS NULL OR api_key = ANY($4))"
        " ORDER BY seq LIMIT $3",
        workspace_id,
        after_seq,
        limit,
        only,
    )
    return [_api_key(r) for r in rows]


async def rename_api_key(conn: Connection, workspace_id: str, api_key: str, name: str) -> bool:
    status = await conn.execute(
        "UPDATE identity.api_key SET name = $3 WHERE api_key = $1 AND workspace_id = $2",
        api_key,
        workspace_id,
        name,
    )
    return bool(status != "UPDATE 0")


async def insert_auth_token(
    conn: Connection, api_key: str, name: str, token_hash: bytes, token_sealed: bytes
) -> None:
    await conn.execute(
        "INSERT INTO identity.auth_token (api_key, name, token_hash, token_sealed)"
        " VALUES ($1, $2, $3, $4)",
        api_key,
        name,
        token_hash,
        token_sealed,
    )


async def live_tokens(conn: Connection | Pool, api_key: str) -> list[TokenRow]:
    rows = await conn.fetch(
        "SELECT id, name, token_sealed FROM identity.auth_token"
        " WHERE api_key = $1 AND revoked_at IS NULL ORDER BY id",
        api_key,
    )
    return [TokenRow(r["id"], r["name"], bytes(r["token_sealed"])) for r in rows]


async def revoke_tokens(conn: Connection, api_key: str) -> int:
    status = await conn.execute(
        "UPDATE identity.auth_token SET revoked_at = now()"
        " WHERE api_key = $1 AND revoked_at IS NULL",
        api_key,
    )
    return int(status.split()[-1])


async def live_token_hashes(
    conn: Connection | Pool, api_key: str
) -> tuple[str, list[bytes]] | None:
    """The workspace of `api_key` and the digests of its live tokens, or None if unknown."""
    row = await conn.fetchrow(
        "SELECT k.workspace_id, coalesce(array_agg(t.token_hash)"
        " FILTER (WHERE t.id IS NOT NULL), '{}') AS hashes"
        " FROM identity.api_key k LEFT JOIN identity.auth_token t"
        " ON t.api_key = k.api_key AND t.revoked_at IS NULL"
        " WHERE k.api_key = $1 GROUP BY k.workspace_id",
        api_key,
    )
    if row is None:
        return None
    return row["workspace_id"], [bytes(h) for h in row["hashes"]]


async def key_for_user_tokens(
    conn: Connection | Pool, api_key: str
) -> tuple[str, datetime | None] | None:
    """The workspace of `api_key` and when its auth token was last reset (user tokens issued
    before then are revoked), or None if the key is unknown."""
    row = await conn.fetchrow(
        "SELECT k.workspace_id, max(t.revoked_at) AS last_reset"
        " FROM identity.api_key k LEFT JOIN identity.auth_token t ON t.api_key = k.api_key"
        " WHERE k.api_key = $1 GROUP BY k.workspace_id",
        api_key,
    )
    if row is None:
        return None
    return row["workspace_id"], row["last_reset"]


async def owner_email(conn: Connection | Pool, workspace_id: str) -> str | None:
    value: str | None = await conn.fetchval(
        "SELECT owner_email FROM identity.workspace WHERE id = $1", workspace_id
    )
    return value
