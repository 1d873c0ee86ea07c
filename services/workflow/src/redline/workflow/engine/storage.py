"""The SQL of the engine: an execution read under its row's lock, and the changes of a
transition written back (tasks of the queue included; claiming them is `queue`).

Every change of an execution locks its row first (`FOR UPDATE`), so two changes of one
execution run one after the other and each sees the other's result; changes of different
executions never wait for each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redline.pg import Connection, write_events
from redline.proto.events import Event
from redline.workflow.engine.queue import HELD
from redline.workflow.engine.state import (
    Changes,
    ExecutionState,
    StepState,
    TaskChange,
)

SCHEMA = "workflow"
TASK_CHANNEL = "redline_workflow_task"

_EXECUTION_COLUMNS = """execution_id, api_key, workspace_id, definition_id,
    definition_uid::text AS definition_uid, definition_version, status, correlation_id,
    idempotency_key, trigger_context, organization_id, document_id, folder_id, receiver_url,
    receiver_event_types, graph_state, last_seq, last_sent_seq, step_count, started_at,
    completed_at, cancelled_at, failure_reason"""

_STEP_COLUMNS = """step_id, position, node_id, node_type, group_id, iteration, status, input,
    output, error, responses, attempts, failures, created_at, started_at, completed_at"""


async def definition_version(
    conn: Connection, uid: str, version: int
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A pinned version's body and compiled graph, as stored."""
    row = await conn.fetchrow(
        "SELECT body, compiled FROM workflow.definition_version"
        " WHERE uid = $1::uuid AND version = $2",
        uid,
        version,
    )
    return None if row is None else (row["body"], row["compiled"])


async def lock_execution(
    conn: Connection, execution_id: str, api_key: str | None
) -> ExecutionState | None:
    """The execution and its steps, its row locked until the transaction ends; None if there is
    none (of this API key, when one is given).

    The steps are read by a statement of their own, after the lock is held: a statement reads
    what was committed when it began, so steps read by the statement that waited for the lock
    would be as they were before the change it waited for (its row alone is read again)."""
    state = await _locked_execution(conn, execution_id, api_key)
    if state is None:
        return None
    steps = await conn.fetch(_STEPS, execution_id)
    state.steps = {step["step_id"]: StepState(**dict(step)) for step in steps}
    return state


async def lock_claimed_execution(
    conn: Connection, execution_id: str, step_id: str, kind: str, claim_token: str
) -> tuple[ExecutionState | None, bool]:
    """`lock_execution` for a worker's claimed task, and whether the claim is still the
    worker's (its task row then locked too, so no claim takes it before the transaction ends),
    asked in the statement that reads the steps: one round trip fewer per worker transaction.
    The execution is locked first, as every change of it does, so the two locks are always
    taken in the same order."""
    state = await _locked_execution(conn, execution_id, None)
    if state is None:
        return None, False
    rows = await conn.fetch(
        f"WITH held AS (SELECT true AS held FROM workflow.task WHERE {HELD} FOR UPDATE)"  # noqa: S608
        f" SELECT (SELECT held FROM held) AS claim_held, {_STEP_COLUMNS} FROM workflow.step"
        " WHERE execution_id = $1 ORDER BY position",
        execution_id,
        step_id,
        kind,
        claim_token,
    )
    held = bool(rows) and bool(rows[0]["claim_held"])
    state.steps = {
        row["step_id"]: StepState(**{k: v for k, v in row.items() if k != "claim_held"})
        for row in rows
    }
    return state, held


_STEPS = (
    f"SELECT {_STEP_COLUMNS} FROM workflow.step"  # noqa: S608 (constants)
    " WHERE execution_id = $1 ORDER BY position"
)


async def _locked_execution(
    conn: Connection, execution_id: str, api_key: str | None
) -> ExecutionState | None:
    row = await conn.fetchrow(
        f"SELECT {_EXECUTION_COLUMNS} FROM workflow.execution"  # noqa: S608 (constants)
        " WHERE execution_id = $1 AND ($2::text IS NULL OR api_key = $2) FOR UPDATE",
        execution_id,
        api_key,
    )
    return None if row is None else ExecutionState(**dict(row))


async def insert_execution(
    conn: Connection, state: ExecutionState, receiver_secret: bytes | None
) -> bool:
    """Insert a new execution row; False if its idempotency key is taken already (by an
    execution committed before, or by one whose transaction this insert waited for)."""
    inserted = await conn.fetchval(
        """
        INSERT INTO workflow.execution (execution_id, api_key, workspace_id, definition_id,
            definition_uid, definition_version, status, correlation_id, idempotency_key,
            trigger_context, organization_id, document_id, folder_id, receiver_url,
            receiver_secret, receiver_event_types, graph_state, last_seq, last_sent_seq,
            step_count, started_at, completed_at, cancelled_at, failure_reason)
        VALUES ($1, $2, $3, $4, $5::uuid, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                $17, $18, $19, $20, $21, $22, $23, $24)
        ON CONFLICT (api_key, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING true
        """,
        state.execution_id,
        state.api_key,
        state.workspace_id,
        state.definition_id,
        state.definition_uid,
        state.definition_version,
        state.status,
        state.correlation_id,
        state.idempotency_key,
        state.trigger_context,
        state.organization_id,
        state.document_id,
        state.folder_id,
        state.receiver_url,
        receiver_secret,
        state.receiver_event_types,
        state.graph_state,
        state.last_seq,
        state.last_sent_seq,
        state.step_count,
        state.started_at,
        state.completed_at,
        state.cancelled_at,
        state.failure_reason,
    )
    return bool(inserted)


async def execution_by_idempotency_key(
    conn: Connection, api_key: str, idempotency_key: str
) -> tuple[str, str] | None:
    row = await conn.fetchrow(
        "SELECT execution_id, correlation_id FROM workflow.execution"
        " WHERE api_key = $1 AND idempotency_key = $2",
        api_key,
        idempotency_key,
    )
    return None if row is None else (row["execution_id"], row["correlation_id"])


async def append_event(conn: Connection, execution_id: str, type_: str, data: Any) -> None:
    """An internal event outside any transition (a replayed dispatch): it takes the next seq."""
    await conn.execute(
        """
        WITH next AS (
            UPDATE workflow.execution SET last_seq = last_seq + 1
            WHERE execution_id = $1 RETURNING last_seq
        )
        INSERT INTO workflow.event (execution_id, seq, event_id, type, visible, step_id,
            timestamp, data)
        SELECT $1, last_seq, replace(gen_random_uuid()::text, '-', ''), $2, false, NULL,
            (extract(epoch FROM clock_timestamp()) * 1000)::bigint, $3
        FROM next
        """,
        execution_id,
        type_,
        data,
    )


async def flush(
    conn: Connection,
    state: ExecutionState,
    changes: Changes,
    outgoing: Sequence[Event],
) -> None:
    """Write what a transition changed in one statement: the execution row (unless it is new
    and inserted apart), new and changed steps, events and tasks; then the outgoing events.

    One statement of data-modifying parts, each reading its rows from arrays, rather than one
    statement each: a worker's run of a step writes twice, and round trips were most of what
    those writes cost. The parts touch different rows (a task is either removed or set, never
    both: the last change of each wins), so their order within the statement does not matter.
    """
    new = [s for s in state.steps.values() if s.new]
    changed = [s for s in state.steps.values() if s.changed and not s.new]
    gone, due = _task_changes(changes)
    await conn.execute(
        _FLUSH,
        state.execution_id,
        not state.new,
        state.status,
        state.graph_state,
        state.last_seq,
        state.last_sent_seq,
        state.step_count,
        state.completed_at,
        state.cancelled_at,
        state.failure_reason,
        *_step_arrays(new),
        *_step_arrays(changed),
        *_event_arrays(changes),
        [key[0] for key in gone],
        [key[1] for key in gone],
        [task.step_id for task in due],
        [task.kind for task in due],
        [task.due_at_ms for task in due],
        # Workers hear only of tasks that are theirs to claim.
        TASK_CHANNEL if any(task.claim_token is None for task in due) else None,
        state.api_key,
        [task.claim_token for task in due],
        [task.holder for task in due],
    )
    for step in state.steps.values():
        step.new = step.changed = False
    await write_events(conn, SCHEMA, outgoing)


def _steps_from(first: int) -> str:
    """The rows of one set of step arrays, the first at parameter `first`."""
    n = [f"${first + i}" for i in range(16)]
    return f"""unnest({n[0]}::text[], {n[1]}::int[], {n[2]}::text[], {n[3]}::text[],
        {n[4]}::text[], {n[5]}::int[], {n[6]}::text[], {n[7]}::jsonb[], {n[8]}::jsonb[],
        {n[9]}::jsonb[], {n[10]}::jsonb[], {n[11]}::int[], {n[12]}::int[], {n[13]}::bigint[],
        {n[14]}::bigint[], {n[15]}::bigint[])
        AS s(step_id, position, node_id, node_type, group_id, iteration, status, input, output,
             error, responses, attempts, failures, created_at, started_at, completed_at)"""


_FLUSH = f"""
WITH execution AS (
    UPDATE workflow.execution SET status = $3, graph_state = $4, last_seq = $5,
        last_sent_seq = $6, step_count = $7, completed_at = $8, cancelled_at = $9,
        failure_reason = $10
    WHERE execution_id = $1 AND $2
), new_steps AS (
    INSERT INTO workflow.step (execution_id, {_STEP_COLUMNS})
    SELECT $1, s.* FROM {_steps_from(11)}
), changed_steps AS (
    UPDATE workflow.step t SET status = s.status, input = s.input, output = s.output,
        error = s.error, responses = s.responses, attempts = s.attempts, failures = s.failures,
        started_at = s.started_at, completed_at = s.completed_at
    FROM {_steps_from(27)}
    WHERE t.execution_id = $1 AND t.step_id = s.step_id
), events AS (
    INSERT INTO workflow.event (execution_id, seq, event_id, type, visible, step_id,
        timestamp, data)
    SELECT $1, * FROM unnest($43::int[], $44::text[], $45::text[], $46::bool[], $47::text[],
                             $48::bigint[], $49::jsonb[])
), gone_tasks AS (
    DELETE FROM workflow.task t USING unnest($50::text[], $51::text[]) AS g(step_id, kind)
    WHERE t.execution_id = $1 AND t.step_id = g.step_id AND t.kind = g.kind
), due_tasks AS (
    INSERT INTO workflow.task (execution_id, step_id, kind, due_at, api_key, claim_token,
        holder)
    SELECT $1, step_id, kind, to_timestamp(due_ms / 1000.0), $56, claim_token, holder
    FROM unnest($52::text[], $53::text[], $54::bigint[], $57::uuid[], $58::bigint[])
        AS d(step_id, kind, due_ms, claim_token, holder)
    ON CONFLICT (execution_id, step_id, kind)
        DO UPDATE SET due_at = excluded.due_at, claim_token = excluded.claim_token,
            holder = excluded.holder
)
-- Workers hear of tasks due now at commit (a notification is sent only if the transaction
-- commits).
SELECT pg_notify($55, '') WHERE $55::text IS NOT NULL
"""  # noqa: S608 (this module's constants)


def _task_changes(changes: Changes) -> tuple[list[tuple[str, str]], list[TaskChange]]:
    """The tasks (step, kind) a transition removed, and those it set: the last change of each
    wins."""
    final: dict[tuple[str, str], TaskChange] = {}
    for task in changes.tasks:
        final[(task.step_id, task.kind)] = task
    gone = [key for key, task in final.items() if task.due_at_ms is None]
    due = [task for task in final.values() if task.due_at_ms is not None]
    return gone, due


def _event_arrays(changes: Changes) -> list[list[Any]]:
    events = changes.events
    return [
        [e.seq for e in events],
        [e.event_id for e in events],
        [e.type for e in events],
        [e.visible for e in events],
        [e.step_id for e in events],
        [e.timestamp for e in events],
        [e.data for e in events],
    ]


def _step_arrays(steps: list[StepState]) -> list[list[Any]]:
    return [
        [s.step_id for s in steps],
        [s.position for s in steps],
        [s.node_id for s in steps],
        [s.node_type for s in steps],
        [s.group_id for s in steps],
        [s.iteration for s in steps],
        [s.status for s in steps],
        [s.input for s in steps],
        [s.output for s in steps],
        [s.error for s in steps],
        [s.responses for s in steps],
        [s.attempts for s in steps],
        [s.failures for s in steps],
        [s.created_at for s in steps],
        [s.started_at for s in steps],
        [s.completed_at for s in steps],
    ]


def receiver_binding(execution_id: str) -> str:
    """What an execution's sealed receiver secret is bound to."""
    return f"execution:{execution_id}"


async def receiver_secret(
    conn: Connection, api_key: str, execution_id: str, workspace_id: str | None = None
) -> tuple[str, bytes] | None:
    """The execution's receiver URL and sealed secret (of that API key, and workspace when
    given); None if it has no receiver."""
    row = await conn.fetchrow(
        "SELECT receiver_url, receiver_secret FROM workflow.execution"
        " WHERE execution_id = $1 AND api_key = $2 AND receiver_url IS NOT NULL"
        " AND ($3::text IS NULL OR workspace_id = $3)",
        execution_id,
        api_key,
        workspace_id,
    )
    return None if row is None else (row["receiver_url"], bytes(row["receiver_secret"]))
