"""The SQL of alerts and alert settings."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.pg import Connection


class AlertRow(msgspec.Struct, kw_only=True):
    api_key: str
    alert_id: str
    workspace_id: str
    alert_type: str
    severity: str
    title: str
    description: str
    evidence: dict[str, Any]
    suggested_action: str | None
    action_url: str | None = None
    status: str = "active"
    dedup_key: str
    created_at: int
    dismissed_at: int | None = None
    dismissed_by: str | None = None
    actioned_at: int | None = None


_COLUMNS = ", ".join(AlertRow.__struct_fields__)


async def active(conn: Connection, api_key: str, limit: int) -> list[AlertRow]:
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM memory.alert"  # noqa: S608 (this module's columns)
        " WHERE api_key = $1 AND status = 'active'"
        " ORDER BY created_at DESC, alert_id DESC LIMIT $2",
        api_key,
        limit,
    )
    return [msgspec.convert(dict(r), AlertRow) for r in records]


async def dismiss(conn: Connection, api_key: str, alert_id: str, by: str, now_ms: int) -> bool:
    """Dismiss an active or dismissed alert (again: the time moves); an actioned one stays
    actioned. False if the key has no such alert."""
    found = await conn.fetchval(
        "WITH target AS (SELECT alert_id, status FROM memory.alert"
        "                 WHERE api_key = $1 AND alert_id = $2 FOR UPDATE),"
        " changed AS (UPDATE memory.alert a SET status = 'dismissed', dismissed_at = $4,"
        "             dismissed_by = $3 FROM target"
        "             WHERE a.api_key = $1 AND a.alert_id = target.alert_id"
        "             AND target.status <> 'actioned')"
        " SELECT count(*) FROM target",
        api_key,
        alert_id,
        by,
        now_ms,
    )
    return bool(found)


async def action(conn: Connection, api_key: str, alert_id: str, now_ms: int) -> bool:
    """Mark an alert actioned (once: a second call changes nothing). False if the key has no
    such alert."""
    found = await conn.fetchval(
        "WITH target AS (SELECT alert_id, status FROM memory.alert"
        "                 WHERE api_key = $1 AND alert_id = $2 FOR UPDATE),"
        " changed AS (UPDATE memory.alert a SET status = 'actioned', actioned_at = $3"
        "             FROM target WHERE a.api_key = $1 AND a.alert_id = target.alert_id"
        "             AND target.status <> 'actioned')"
        " SELECT count(*) FROM target",
        api_key,
        alert_id,
        now_ms,
    )
    return bool(found)


async def config(conn: Connection, api_key: str) -> dict[str, Any]:
    stored: dict[str, Any] | None = await conn.fetchval(
        "SELECT config FROM memory.alert_config WHERE api_key = $1", api_key
    )
    return stored or {}


async def merge_config(
    conn: Connection, api_key: str, changes: dict[str, Any], now_ms: int
) -> None:
    await conn.execute(
        "INSERT INTO memory.alert_config (api_key, config, updated_at) VALUES ($1, $2, $3)"
        " ON CONFLICT (api_key) DO UPDATE"
        " SET config = alert_config.config || EXCLUDED.config, updated_at = EXCLUDED.updated_at",
        api_key,
        changes,
        now_ms,
    )


# raising ---------------------------------------------------------------------------------------


async def lock_key(conn: Connection, api_key: str) -> None:
    """Serialise raising alerts for one key across replicas, for this transaction."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('memory.alert:' || $1, 0))", api_key
    )


async def raised_since(conn: Connection, api_key: str, since_ms: int) -> list[str]:
    """The dedup keys of the alerts raised for the key since `since_ms`, whatever their state."""
    records = await conn.fetch(
        "SELECT dedup_key FROM memory.alert WHERE api_key = $1 AND created_at >= $2",
        api_key,
        since_ms,
    )
    return [r["dedup_key"] for r in records]


async def insert(conn: Connection, alert: AlertRow) -> bool:
    """Insert `alert` unless its trend has an active alert; whether it was inserted."""
    fields = AlertRow.__struct_fields__
    inserted = await conn.fetchval(
        f"INSERT INTO memory.alert ({_COLUMNS})"  # noqa: S608
        f" VALUES ({', '.join(f'${i + 1}' for i in range(len(fields)))})"
        " ON CONFLICT DO NOTHING RETURNING 1",
        *(getattr(alert, name) for name in fields),
    )
    return inserted is not None


_SWEEP_LOCK = "memory.alert-sweep"


async def try_sweep_lock(conn: Connection) -> bool:
    """Take the session lock of the periodic check on `conn`; False if another replica has it."""
    taken: bool = await conn.fetchval(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0))", _SWEEP_LOCK
    )
    return taken


async def sweep_unlock(conn: Connection) -> None:
    await conn.execute("SELECT pg_advisory_unlock(hashtextextended($1, 0))", _SWEEP_LOCK)


class Window(msgspec.Struct, kw_only=True):
    approvals: int
    rejections: int


async def decided(
    conn: Connection,
    api_key: str,
    since_ms: int,
    approving: list[str],
    rejecting: list[str],
) -> Window:
    """The key's approvals and rejections since `since_ms`."""
    record = await conn.fetchrow(
        "SELECT count(*) FILTER (WHERE decision = ANY($3)) AS approvals,"
        " count(*) FILTER (WHERE decision = ANY($4)) AS rejections"
        " FROM memory.judgment WHERE api_key = $1 AND created_at >= $2",
        api_key,
        since_ms,
        approving,
        rejecting,
    )
    return msgspec.convert(dict(record or {}), Window)


async def active_keys(conn: Connection, since_ms: int) -> list[tuple[str, str]]:
    """Keys (with their workspace) that recorded judgments since `since_ms`."""
    records = await conn.fetch(
        "SELECT DISTINCT api_key, workspace_id FROM memory.judgment WHERE created_at >= $1",
        since_ms,
    )
    return [(r["api_key"], r["workspace_id"]) for r in records]
