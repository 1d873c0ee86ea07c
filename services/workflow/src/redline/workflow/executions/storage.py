"""The SQL of the execution reads: one execution with its steps, pages of executions, pages of
events, and what dispatch needs of a definition. Changes go through `engine.storage`."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.pg import Connection


class DispatchTarget(msgspec.Struct, frozen=True, kw_only=True):
    uid: str
    version: int
    status: str
    scope: dict[str, Any] | None
    receiver_url: str | None
    receiver_secret: bytes | None
    receiver_event_types: list[str] | None


class ExecutionRow(msgspec.Struct, frozen=True, kw_only=True):
    execution_id: str
    status: str
    started_at: int
    completed_at: int | None
    cancelled_at: int | None
    definition_id: str
    definition_version: int
    correlation_id: str
    idempotency_key: str | None
    failure_reason: dict[str, Any] | None


class StepRow(msgspec.Struct, frozen=True, kw_only=True):
    step_id: str
    node_id: str
    node_type: str
    status: str
    group_id: str | None
    started_at: int | None
    completed_at: int | None
    output: dict[str, Any]
    error: dict[str, Any] | None


class EventRow(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    event_id: str
    type: str
    step_id: str | None
    timestamp: int
    data: dict[str, Any] | None


_EXECUTION = """execution_id, status, started_at, completed_at, cancelled_at, definition_id,
    definition_version, correlation_id, idempotency_key, failure_reason"""


async def dispatch_target(
    conn: Connection, api_key: str, definition_id: str
) -> DispatchTarget | None:
    row = await conn.fetchrow(
        "SELECT uid::text AS uid, version, status, body->'scope' AS scope, receiver_url,"
        " receiver_secret, receiver_event_types FROM workflow.definition"
        " WHERE api_key = $1 AND definition_id = $2",
        api_key,
        definition_id,
    )
    if row is None:
        return None
    values = dict(row)
    if values["receiver_secret"] is not None:
        values["receiver_secret"] = bytes(values["receiver_secret"])
    return DispatchTarget(**values)


async def execution(conn: Connection, api_key: str, execution_id: str) -> ExecutionRow | None:
    row = await conn.fetchrow(
        f"SELECT {_EXECUTION} FROM workflow.execution"  # noqa: S608 (constants)
        " WHERE api_key = $1 AND execution_id = $2",
        api_key,
        execution_id,
    )
    return None if row is None else ExecutionRow(**dict(row))


async def steps(conn: Connection, execution_id: str) -> list[StepRow]:
    rows = await conn.fetch(
        "SELECT step_id, node_id, node_type, status, group_id, started_at, completed_at,"
        " output, error FROM workflow.step WHERE execution_id = $1 ORDER BY position",
        execution_id,
    )
    return [StepRow(**dict(r)) for r in rows]


async def executions(
    conn: Connection,
    api_key: str,
    *,
    definition_id: str | None,
    status: str | None,
    after: tuple[int, str] | None,
    limit: int,
) -> list[ExecutionRow]:
    """Newest first; `after` is the (started_at, execution_id) of the previous page's last."""
    rows = await conn.fetch(
        f"SELECT {_EXECUTION} FROM workflow.execution"  # noqa: S608 (constants)
        " WHERE api_key = $1 AND ($2::text IS NULL OR definition_id = $2)"
        " AND ($3::text IS NULL OR status = $3)"
        " AND ($4::bigint IS NULL OR (started_at, execution_id) < ($4, $5))"
        " ORDER BY started_at DESC, execution_id DESC LIMIT $6",
        api_key,
        definition_id,
        status,
        None if after is None else after[0],
        None if after is None else after[1],
        limit,
    )
    return [ExecutionRow(**dict(r)) for r in rows]


async def visible_events(
    conn: Connection, execution_id: str, since_seq: int, limit: int
) -> list[EventRow]:
    rows = await conn.fetch(
        "SELECT seq, event_id, type, step_id, timestamp, data FROM workflow.event"
        " WHERE execution_id = $1 AND seq > $2 AND visible ORDER BY seq LIMIT $3",
        execution_id,
        since_seq,
        limit,
    )
    return [EventRow(**dict(r)) for r in rows]


async def in_flight_for_documents(
    conn: Connection, api_key: str, organization_id: str, document_ids: list[str] | None
) -> list[str]:
    """Executions still running for the documents (for any document of the organization when
    `document_ids` is None)."""
    rows = await conn.fetch(
        "SELECT execution_id FROM workflow.execution"
        " WHERE api_key = $1 AND organization_id = $2"
        " AND ($3::text[] IS NULL OR document_id = ANY($3))"
        " AND status IN ('pending', 'running')",
        api_key,
        organization_id,
        document_ids,
    )
    return [r["execution_id"] for r in rows]
