"""The SQL of patterns: the groups of one key, organization and content type, and the newest."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.pg import Connection


class GroupRow(msgspec.Struct, kw_only=True):
    api_key: str
    pattern_id: str
    workspace_id: str
    organization_id: str | None
    content_type: str | None
    centroid: list[float]
    size: int
    decisions: dict[str, int]
    reviewers: list[str]
    record_ids: list[str]
    representative: str
    discovered_at: int
    updated_at: int


_COLUMNS = ", ".join(GroupRow.__struct_fields__)


async def lock_groups(conn: Connection, api_key: str) -> None:
    """Serialise group changes of one key across replicas, for this transaction."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('memory.pattern:' || $1, 0))", api_key
    )


async def groups(
    conn: Connection, api_key: str, organization_id: str | None, content_type: str | None
) -> list[GroupRow]:
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM memory.pattern WHERE api_key = $1"  # noqa: S608
        " AND organization_id IS NOT DISTINCT FROM $2 AND content_type IS NOT DISTINCT FROM $3",
        api_key,
        organization_id,
        content_type,
    )
    return [msgspec.convert(dict(r), GroupRow) for r in records]


async def of_key(conn: Connection, api_key: str) -> list[GroupRow]:
    """Every group of the key, largest first."""
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM memory.pattern WHERE api_key = $1"  # noqa: S608
        " ORDER BY size DESC, pattern_id",
        api_key,
    )
    return [msgspec.convert(dict(r), GroupRow) for r in records]


async def save(conn: Connection, group: GroupRow) -> None:
    fields = GroupRow.__struct_fields__
    values: list[Any] = [getattr(group, name) for name in fields]
    updates = ", ".join(f"{name} = EXCLUDED.{name}" for name in fields[2:])
    await conn.execute(
        f"INSERT INTO memory.pattern ({_COLUMNS})"  # noqa: S608
        f" VALUES ({', '.join(f'${i + 1}' for i in range(len(fields)))})"
        f" ON CONFLICT (api_key, pattern_id) DO UPDATE SET {updates}",
        *values,
    )


async def newest(conn: Connection, api_key: str, min_size: int, limit: int) -> list[GroupRow]:
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM memory.pattern WHERE api_key = $1 AND size >= $2"  # noqa: S608
        " ORDER BY updated_at DESC, pattern_id LIMIT $3",
        api_key,
        min_size,
        limit,
    )
    return [msgspec.convert(dict(r), GroupRow) for r in records]


async def delete(conn: Connection, api_key: str, pattern_id: str) -> None:
    await conn.execute(
        "DELETE FROM memory.pattern WHERE api_key = $1 AND pattern_id = $2", api_key, pattern_id
    )
