"""The engine's reads and writes of an execution: a change that waited for another's lock
reads what that one wrote."""

from __future__ import annotations

import asyncio
import uuid

from redline.pg import Connection, Pool
from redline.workflow.engine import storage
from redline.workflow.engine.scheduling import start_run
from redline.workflow.engine.transition import Transition
from services.workflow.tests.engine_support import Run, agent, edge

FAN_OUT = {
    "definitionId": "fan-out",
    "name": "fan-out",
    "nodes": [agent("a"), agent("b")],
    "edges": [edge("a", "b")],
}


async def stored(pool: Pool, body: dict[str, object]) -> Run:
    """A dispatched run of `body`, written as the service writes a dispatch."""
    run = Run(body)
    run.state.definition_uid = str(uuid.uuid4())
    run.state.new = True
    async with pool.acquire() as conn, conn.transaction():
        await storage.insert_execution(conn, run.state, None)
        await storage.flush(conn, run.state, run.last, [])
    return run


async def _until_a_lock_is_awaited(pool: Pool) -> None:
    async with pool.acquire() as conn:
        while not await conn.fetchval("SELECT count(*) FROM pg_locks WHERE NOT granted"):  # noqa: ASYNC110 (a condition of another server)
            await asyncio.sleep(0.01)


async def _statuses_once_locked(conn: Connection, execution_id: str) -> dict[str, str]:
    async with conn.transaction():
        state = await storage.lock_execution(conn, execution_id, None)
        assert state is not None
        return {step_id: step.status for step_id, step in state.steps.items()}


async def test_a_change_that_waited_for_the_lock_reads_the_steps_as_the_other_left_them(
    pool: Pool,
) -> None:
    run = await stored(pool, FAN_OUT)
    [root] = run.state.steps
    async with pool.acquire() as first, pool.acquire() as second:
        transaction = first.transaction()
        await transaction.start()
        held = await storage.lock_execution(first, run.state.execution_id, None)
        assert held is not None
        waiting = asyncio.create_task(_statuses_once_locked(second, run.state.execution_id))
        await _until_a_lock_is_awaited(pool)
        change = Transition(held, run.graph, run.now + 1, max_steps=100)
        assert start_run(change, held.steps[root])
        await storage.flush(first, held, change.changes, [])
        await transaction.commit()
        seen = await waiting

    assert seen[root] == "running"
