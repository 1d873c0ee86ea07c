"""The SQL of triggers: the definition an inbound delivery names, the enabled schedules every
replica reads each few seconds, and whether a slot already has its execution. Triggers live in
the stored definition body (as authored, secrets included), so there is no table of their own."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.pg import Connection


class TriggerSource(msgspec.Struct, frozen=True, kw_only=True):
    """An active definition as triggers see it: its body (triggers and scope) and its owner."""

    workspace_id: str
    body: dict[str, Any]


class ScheduleRow(msgspec.Struct, frozen=True, kw_only=True):
    api_key: str
    definition_id: str
    trigger_id: str
    schedule: dict[str, Any]


async def active_definition(
    conn: Connection, api_key: str, definition_id: str
) -> TriggerSource | None:
    row = await conn.fetchrow(
        "SELECT workspace_id, body FROM workflow.definition"
        " WHERE api_key = $1 AND definition_id = $2 AND status = 'active'",
        api_key,
        definition_id,
    )
    return None if row is None else TriggerSource(**dict(row))


async def enabled_schedules(conn: Connection) -> list[ScheduleRow]:
    """Every enabled schedule trigger of every active definition, one row per trigger.

    The jsonpath condition is, word for word, the predicate of the partial index
    `definition_scheduled` (migration 0002): the planner uses that index only for a query whose
    condition implies its predicate, and this query runs in every replica every few seconds, so
    it reads the few scheduled definitions instead of every definition's body. Definitions
    keep their triggers in the body, so the index follows each write with no table to keep in
    step with it."""
    rows = await conn.fetch(
        """
        SELECT d.api_key, d.definition_id, t.item->>'triggerId' AS trigger_id,
               t.item->'schedule' AS schedule
        FROM workflow.definition d
        CROSS JOIN LATERAL jsonb_array_elements(d.body->'triggers') AS t(item)
        WHERE d.status = 'active'
          AND d.body @? '$.triggers[*].schedule ? (@.enabled == true)'
          AND t.item->'schedule'->'enabled' = 'true'::jsonb
        ORDER BY d.api_key, d.definition_id
        """
    )
    return [ScheduleRow(**dict(r)) for r in rows]


async def has_execution(conn: Connection, api_key: str, idempotency_key: str) -> bool:
    found = await conn.fetchval(
        "SELECT true FROM workflow.execution WHERE api_key = $1 AND idempotency_key = $2",
        api_key,
        idempotency_key,
    )
    return bool(found)
