"""The SQL of judgments: recording one, and reading them by scope and filters."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.pg import Connection


class JudgmentRow(msgspec.Struct, kw_only=True):
    api_key: str
    record_id: str
    workspace_id: str
    organization_id: str | None
    document_id: str | None
    annotation_id: str | None
    decision: str
    reasoning: str
    confidence: float
    judge_type: str
    content_type: str | None
    reviewer_id: str | None
    action_user: dict[str, Any] | None
    agent: dict[str, Any] | None
    content: str
    source_event: str
    created_at: int


class Where(msgspec.Struct, kw_only=True):
    """Which judgments of a key a read takes; None is no condition."""

    api_key: str
    organization_id: str | None = None
    document_id: str | None = None
    annotation_id: str | None = None
    decision: str | None = None
    judge_type: str | None = None
    content_type: str | None = None
    reviewer_id: str | None = None
    created_from: int | None = None  # inclusive, ms
    created_before: int | None = None  # exclusive, ms
    exclude_document_ids: list[str] | None = None


_COLUMNS = ", ".join(JudgmentRow.__struct_fields__)
_CONDITIONS = """
    api_key = $1
    AND ($2::text IS NULL OR organization_id = $2)
    AND ($3::text IS NULL OR document_id = $3)
    AND ($4::text IS NULL OR annotation_id = $4)
    AND ($5::text IS NULL OR decision = $5)
    AND ($6::text IS NULL OR judge_type = $6)
    AND ($7::text IS NULL OR content_type = $7)
    AND ($8::text IS NULL OR reviewer_id = $8)
    AND ($9::bigint IS NULL OR created_at >= $9)
    AND ($10::bigint IS NULL OR created_at < $10)
    AND ($11::text[] IS NULL OR document_id IS NULL OR NOT document_id = ANY($11))
"""


def _params(where: Where) -> list[Any]:
    return [
        where.api_key,
        where.organization_id,
        where.document_id,
        where.annotation_id,
        where.decision,
        where.judge_type,
        where.content_type,
        where.reviewer_id,
        where.created_from,
        where.created_before,
        where.exclude_document_ids,
    ]


async def insert(conn: Connection, row: JudgmentRow) -> bool:
    """Record `row` once; False if its record id is already there (a redelivered event)."""
    fields = JudgmentRow.__struct_fields__
    inserted = await conn.fetchval(
        f"INSERT INTO memory.judgment ({_COLUMNS})"  # noqa: S608 (this module's columns)
        f" VALUES ({', '.join(f'${i + 1}' for i in range(len(fields)))})"
        " ON CONFLICT (api_key, record_id) DO NOTHING RETURNING 1",
        *(getattr(row, name) for name in fields),
    )
    return inserted is not None


async def select(
    conn: Connection, where: Where, limit: int, *, oldest_first: bool = False
) -> list[JudgmentRow]:
    order = "created_at, record_id" if oldest_first else "created_at DESC, record_id DESC"
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM memory.judgment WHERE {_CONDITIONS}"  # noqa: S608
        f" ORDER BY {order} LIMIT $12",
        *_params(where),
        limit,
    )
    return [msgspec.convert(dict(r), JudgmentRow) for r in records]


async def by_ids(conn: Connection, api_key: str, record_ids: list[str]) -> list[JudgmentRow]:
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM memory.judgment"  # noqa: S608
        " WHERE api_key = $1 AND record_id = ANY($2)",
        api_key,
        record_ids,
    )
    return [msgspec.convert(dict(r), JudgmentRow) for r in records]


async def count(conn: Connection, where: Where) -> int:
    counted: int = await conn.fetchval(
        f"SELECT count(*) FROM memory.judgment WHERE {_CONDITIONS}",  # noqa: S608
        *_params(where),
    )
    return counted


async def workspace_of(conn: Connection, api_key: str) -> str | None:
    """The workspace of a key's judgments (a key belongs to one)."""
    found: str | None = await conn.fetchval(
        "SELECT workspace_id FROM memory.judgment WHERE api_key = $1 LIMIT 1", api_key
    )
    return found
