"""The SQL of the delivery log that the API reads and replays: list, attempts, states, requeue.

The queue itself is `storage` (enqueue, record) and `claim_storage` (claim).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import msgspec

from redline.notify.deliveries.storage import NOTIFY_CHANNEL
from redline.pg import Connection
from redline.pg.pages import has_more, within_byte_budget


class DeliveryRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    webhook_id: str
    event_id: str
    event_type: str
    target: str
    url: str
    state: str
    attempts: int
    next_attempt_at: dt.datetime
    last_status: int | None
    last_error: str | None
    created_at: dt.datetime
    finished_at: dt.datetime | None


class AttemptRow(msgspec.Struct, frozen=True, kw_only=True):
    delivery_id: int
    attempt: int
    started_at: dt.datetime
    status: int | None
    latency_ms: float
    error: str | None


class DeliveryFilter(msgspec.Struct, frozen=True, kw_only=True):
    workspace_id: str
    api_key: str
    state: str | None = None
    event_types: list[str] | None = None
    created_after: dt.datetime | None = None
    created_before: dt.datetime | None = None
    # Keyset: the last row of the previous page (newest first).
    before: tuple[dt.datetime, int] | None = None


_LIST_COLUMNS = (
    "id, webhook_id, event_id, event_type, target, url, state, attempts, next_attempt_at,"
    " last_status, last_error, created_at, finished_at"
)


# What a delivery and its attempt log weigh in a page: its texts, and each attempt's error and
# about as much again for the attempt's other fields.
_ATTEMPT_BYTES = 128
_PAGE = (
    f"SELECT {_LIST_COLUMNS},"  # noqa: S608 (fixed column list)
    " octet_length(webhook_id) + octet_length(event_id) + octet_length(event_type)"
    " + octet_length(url) + coalesce(octet_length(last_error), 0)"
    " + (SELECT coalesce(sum(coalesce(octet_length(a.error), 0) + $11), 0)"
    " FROM notify.delivery_attempt a WHERE a.delivery_id = d.id) AS row_bytes"
    " FROM notify.delivery d"
    " WHERE workspace_id = $1 AND api_key = $2"
    " AND ($3::text IS NULL OR state = $3)"
    " AND ($4::text[] IS NULL OR event_type = ANY($4))"
    " AND ($5::timestamptz IS NULL OR created_at >= $5)"
    " AND ($6::timestamptz IS NULL OR created_at <= $6)"
    " AND ($7::timestamptz IS NULL OR (created_at, id) < ($7, $8))"
    " ORDER BY created_at DESC, id DESC LIMIT $9 + 1"
)
_LIST = within_byte_budget(
    _PAGE,
    order="q.created_at DESC, q.id DESC",
    row_bytes="q.row_bytes",
    page_size="$9",
    budget="$10",
)
_ROW_FIELDS = DeliveryRow.__struct_fields__


async def list_deliveries(
    conn: Connection, where: DeliveryFilter, size: int, byte_budget: int
) -> tuple[list[DeliveryRow], bool]:
    """One key's deliveries, newest first: at most `size` of them and `byte_budget` bytes of
    them with their attempt logs (redline.pg.pages), and whether more follow. `$n IS NULL OR …`
    keeps it one fixed statement."""
    rows = await conn.fetch(
        _LIST,
        where.workspace_id,
        where.api_key,
        where.state,
        where.event_types,
        where.created_after,
        where.created_before,
        where.before[0] if where.before else None,
        where.before[1] if where.before else None,
        size,
        byte_budget,
        _ATTEMPT_BYTES,
    )
    found = [DeliveryRow(**{name: row[name] for name in _ROW_FIELDS}) for row in rows]
    return found, has_more(rows)


async def attempts_of(conn: Connection, delivery_ids: Sequence[int]) -> list[AttemptRow]:
    rows = await conn.fetch(
        "SELECT delivery_id, attempt, started_at, status, latency_ms, error"
        " FROM notify.delivery_attempt WHERE delivery_id = ANY($1::bigint[])"
        " ORDER BY delivery_id, attempt",
        list(delivery_ids),
    )
    return [AttemptRow(**dict(row)) for row in rows]


async def states_of(
    conn: Connection, workspace_id: str, api_key: str, webhook_ids: Sequence[str]
) -> dict[str, tuple[str, int]]:
    """State and attempt count per known webhook id, locked for the caller's transaction.

    Rows are locked in id order, as the worker's statements lock them (see `storage`)."""
    rows = await conn.fetch(
        "SELECT webhook_id, state, attempts FROM notify.delivery"
        " WHERE workspace_id = $1 AND api_key = $2 AND webhook_id = ANY($3::text[])"
        " ORDER BY id FOR UPDATE",
        workspace_id,
        api_key,
        list(webhook_ids),
    )
    return {row["webhook_id"]: (row["state"], row["attempts"]) for row in rows}


async def requeue(
    conn: Connection, workspace_id: str, api_key: str, webhook_ids: Sequence[str]
) -> None:
    """Make failed or waiting deliveries due now, with their retry schedule started again."""
    if not webhook_ids:
        return
    await conn.execute(
        "UPDATE notify.delivery SET state = 'pending', round_failures = 0,"
        " next_attempt_at = now(), finished_at = NULL"
        " WHERE workspace_id = $1 AND api_key = $2 AND webhook_id = ANY($3::text[])"
        " AND state IN ('pending', 'failed')",
        workspace_id,
        api_key,
        list(webhook_ids),
    )
    await conn.execute("SELECT pg_notify($1, '')", NOTIFY_CHANNEL)
