"""Workers SIGKILLed again and again while 200 executions run: every execution still completes,
its event log has no gap and no duplicate, and no step completes twice. The lease is the default
two minutes: a killed worker's claims are taken up as soon as its database session ends."""

from __future__ import annotations

import asyncio
import random
import secrets
import sys
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from aiohttp import web

from redline.bus import Bus
from redline.envelope import ApiKeyPrincipal
from redline.pg import Pool
from redline.runtime.access import AccessClient
from redline.runtime.keys import Sealer
from redline.webhooks import AddressGuard
from redline.workflow.definitions.models import CreateDefinition
from redline.workflow.definitions.service import DefinitionService
from redline.workflow.engine.engine import Engine
from redline.workflow.executions.models import DispatchExecution
from redline.workflow.executions.service import ExecutionService
from services.workflow.tests.nodes_support import local_hook

WORKER = Path(__file__).with_name("worker_process.py")
EXECUTIONS = 200
LEASE_S = 120.0
KILLS = 6
PRINCIPAL = ApiKeyPrincipal(workspace_id="ws", api_key="key")


class Receiver:
    """Answers each webhook step after a moment, so that kills land mid-call."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    async def handle(self, request: web.Request) -> web.Response:
        body = msgspec.json.decode(await request.read())
        self.calls[body["stepId"]] += 1
        await asyncio.sleep(0.02)
        return web.json_response({"ok": True})


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    found = Receiver()
    async with local_hook(found.handle) as url:
        yield found, url


async def _dispatch_all(pool: Pool, bus: Bus, url: str) -> list[str]:
    sealer = Sealer(secrets.token_bytes(32))
    guard = AddressGuard(["127.0.0.1"])
    nodes = [
        {"nodeId": f"w{i}", "type": "webhook", "config": {"url": url, "authMode": "none"}}
        for i in (1, 2, 3)
    ]
    edges = [{"from": "w1", "to": "w2"}, {"from": "w2", "to": "w3"}]
    body = {"definitionId": "chain", "name": "chain", "nodes": nodes, "edges": edges}
    await DefinitionService(pool, sealer, guard).create(
        PRINCIPAL, msgspec.convert(body, CreateDefinition)
    )
    engine = Engine(pool, retry_delays_s=[0.2], max_steps_per_execution=1000)
    executions = ExecutionService(engine, sealer, guard, AccessClient(bus))
    dispatched = [
        await executions.dispatch(PRINCIPAL, DispatchExecution(definitionId="chain"))
        for _ in range(EXECUTIONS)
    ]
    return [d.executionId for d in dispatched]


async def _worker(database_url: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, str(WORKER), database_url, str(LEASE_S)
    )


async def _until_all_ended(pool: Pool, timeout_s: float) -> None:
    async with asyncio.timeout(timeout_s):
        while True:
            async with pool.acquire() as conn:
                left = await conn.fetchval(
                    "SELECT count(*) FROM workflow.execution WHERE status = 'running'"
                )
            if left == 0:
                return
            await asyncio.sleep(0.1)


async def test_killed_workers_lose_no_event_and_complete_no_step_twice(
    pool: Pool, database_url: str, nats_url: str, receiver: tuple[Receiver, str]
) -> None:
    calls, url = receiver
    bus = await Bus.connect(nats_url, name="test-worker-kill")
    try:
        ids = await _dispatch_all(pool, bus, url)
    finally:
        await bus.close()
    rng = random.Random(7)
    for _ in range(KILLS):
        process = await _worker(database_url)
        await asyncio.sleep(rng.uniform(0.3, 0.8))
        process.kill()  # SIGKILL: no cleanup, claims left behind
        await process.wait()
    survivor = await _worker(database_url)
    try:
        await _until_all_ended(pool, 120)
    finally:
        survivor.kill()
        await survivor.wait()

    async with pool.acquire() as conn:
        statuses = await conn.fetch("SELECT status, count(*) FROM workflow.execution GROUP BY 1")
        events = await conn.fetch(
            "SELECT execution_id, seq, event_id, type, visible, step_id FROM workflow.event"
            " ORDER BY execution_id, seq"
        )
        last = dict(await conn.fetch("SELECT execution_id, last_seq FROM workflow.execution"))
    assert [tuple(r) for r in statuses] == [("completed", EXECUTIONS)]
    by_execution: dict[str, list[Any]] = {}
    for row in events:
        by_execution.setdefault(row["execution_id"], []).append(row)
    assert set(by_execution) == set(ids)
    assert len({row["event_id"] for row in events}) == len(events)
    for execution_id, rows in by_execution.items():
        seqs = [row["seq"] for row in rows]
        assert seqs == list(range(1, last[execution_id] + 1)), execution_id
        completed = Counter(row["step_id"] for row in rows if row["type"] == "step.completed")
        assert len(completed) == 3, (execution_id, completed)
        assert set(completed.values()) == {1}, (execution_id, completed)
        visible = [row["type"] for row in rows if row["visible"]]
        assert visible == [
            "execution.dispatched",
            "step.completed",
            "step.completed",
            "step.completed",
            "execution.completed",
        ]
    # Every step's webhook was called, some more than once (a worker died after the call).
    assert len(calls.calls) == 3 * EXECUTIONS
    retried = sum(1 for rows in by_execution.values() for r in rows if r["type"] == "step.retried")
    print(f"calls {sum(calls.calls.values())} for {3 * EXECUTIONS} steps; {retried} take-ups")
