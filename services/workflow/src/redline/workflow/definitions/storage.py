"""The SQL of definitions: the current row per id, and the immutable versions executions pin."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.pg import Connection


class StoredDefinition(msgspec.Struct, frozen=True, kw_only=True):
    uid: str
    version: int
    status: str
    body: dict[str, Any]
    compiled: dict[str, Any]
    created_at: int
    updated_at: int


class NewVersion(msgspec.Struct, frozen=True, kw_only=True):
    api_key: str
    workspace_id: str
    definition_id: str
    uid: str
    version: int
    body: dict[str, Any]
    compiled: dict[str, Any]
    receiver_url: str | None
    receiver_secret: bytes | None
    receiver_event_types: list[str] | None
    created_at: int
    updated_at: int


_COLUMNS = "uid::text AS uid, version, status, body, compiled, created_at, updated_at"


async def lock_key(conn: Connection, api_key: str) -> None:
    """Serialise definition writes of one API key for the rest of the transaction: they are
    rare, and it makes each write's `updatedAt` unique within the key (the list's cursor)."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtext('workflow.definition:' || $1))", api_key
    )


async def next_update_time(conn: Connection, api_key: str, now_ms: int) -> int:
    latest = await conn.fetchval(
        "SELECT max(updated_at) FROM workflow.definition WHERE api_key = $1", api_key
    )
    return now_ms if latest is None else max(now_ms, int(latest) + 1)


async def find(conn: Connection, api_key: str, definition_id: str) -> StoredDefinition | None:
    row = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM workflow.definition"  # noqa: S608 (constants)
        " WHERE api_key = $1 AND definition_id = $2",
        api_key,
        definition_id,
    )
    return None if row is None else StoredDefinition(**dict(row))


async def save(conn: Connection, new: NewVersion) -> None:
    """Make `new` the definition's current version (inserting or replacing its row) and keep it
    among the versions."""
    await conn.execute(
        """
        INSERT INTO workflow.definition (api_key, definition_id, workspace_id, uid, version,
            status, body, compiled, receiver_url, receiver_secret, receiver_event_types,
            created_at, updated_at)
        VALUES ($1, $2, $3, $4::uuid, $5, 'active', $6, $7, $8, $9, $10, $11, $12)
        ON CONFLICT (api_key, definition_id) DO UPDATE SET
            uid = excluded.uid, version = excluded.version, status = 'active',
            body = excluded.body, compiled = excluded.compiled,
            receiver_url = excluded.receiver_url, receiver_secret = excluded.receiver_secret,
            receiver_event_types = excluded.receiver_event_types,
            created_at = excluded.created_at, updated_at = excluded.updated_at
        """,
        new.api_key,
        new.definition_id,
        new.workspace_id,
        new.uid,
        new.version,
        new.body,
        new.compiled,
        new.receiver_url,
        new.receiver_secret,
        new.receiver_event_types,
        new.created_at,
        new.updated_at,
    )
    await conn.execute(
        "INSERT INTO workflow.definition_version (uid, version, body, compiled, created_at)"
        " VALUES ($1::uuid, $2, $3, $4, $5)",
        new.uid,
        new.version,
        new.body,
        new.compiled,
        new.updated_at,
    )


async def has_executions_in_flight(conn: Connection, api_key: str, definition_id: str) -> bool:
    found = await conn.fetchval(
        "SELECT true FROM workflow.execution WHERE api_key = $1 AND definition_id = $2"
        " AND status IN ('pending', 'running') LIMIT 1",
        api_key,
        definition_id,
    )
    return bool(found)


async def tombstone(conn: Connection, api_key: str, definition_id: str, updated_at: int) -> None:
    await conn.execute(
        "UPDATE workflow.definition SET status = 'tombstoned', updated_at = $3"
        " WHERE api_key = $1 AND definition_id = $2",
        api_key,
        definition_id,
        updated_at,
    )


async def purge(conn: Connection, api_key: str, definition_id: str, uid: str) -> None:
    """Delete the definition and its versions (no execution runs on them any more)."""
    await conn.execute(
        "DELETE FROM workflow.definition WHERE api_key = $1 AND definition_id = $2",
        api_key,
        definition_id,
    )
    await drop_versions(conn, uid)


async def drop_versions(conn: Connection, uid: str) -> None:
    await conn.execute("DELETE FROM workflow.definition_version WHERE uid = $1::uuid", uid)


async def page(
    conn: Connection, api_key: str, before: int | None, limit: int
) -> list[StoredDefinition]:
    """Active definitions, most recently updated first, updated before `before` if given."""
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} FROM workflow.definition"  # noqa: S608 (constants)
        " WHERE api_key = $1 AND status = 'active' AND ($2::bigint IS NULL OR updated_at < $2)"
        " ORDER BY updated_at DESC LIMIT $3",
        api_key,
        before,
        limit,
    )
    return [StoredDefinition(**dict(r)) for r in rows]
