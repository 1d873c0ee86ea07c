"""A worker that records a step's outcome takes up the step it made due at once: the next step
of a chain runs on that worker, held by it, before the worker claims from the queue again."""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import AsyncIterator

import msgspec
import pytest
from aiohttp import web

from redline.bus import Bus
from redline.envelope import ApiKeyPrincipal
from redline.pg import Pool, holding
from redline.runtime.access import AccessClient
from redline.runtime.keys import Sealer
from redline.webhooks import AddressGuard, WebhookClient
from redline.workflow.callbacks.links import CallbackLinks
from redline.workflow.definitions.models import CreateDefinition
from redline.workflow.definitions.service import DefinitionService
from redline.workflow.engine.engine import Engine
from redline.workflow.engine.nodes.slack import SlackSender
from redline.workflow.engine.runners import NodeRunners
from redline.workflow.engine.worker import StepWorker
from redline.workflow.executions.models import DispatchExecution
from redline.workflow.executions.service import ExecutionService
from services.workflow.tests.nodes_support import local_hook

PRINCIPAL = ApiKeyPrincipal(workspace_id="ws", api_key="key")
OTHER_KEY = ApiKeyPrincipal(workspace_id="ws-b", api_key="key-b")
KEY = secrets.token_bytes(32)


class Receiver:
    """Notes the nodes it is called for, in order; holds w2 until released."""

    def __init__(self) -> None:
        self.nodes: list[str] = []
        self.second_called = asyncio.Event()
        self.release = asyncio.Event()

    async def handle(self, request: web.Request) -> web.Response:
        body = msgspec.json.decode(await request.read())
        self.nodes.append(body["nodeId"])
        if body["nodeId"] == "w2":
            self.second_called.set()
            await self.release.wait()
        return web.json_response({"ok": True})


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    found = Receiver()
    async with local_hook(found.handle) as url:
        yield found, url
        found.release.set()


async def _dispatch(
    pool: Pool,
    engine: Engine,
    nats_url: str,
    principal: ApiKeyPrincipal,
    nodes: list[str],
    url: str,
) -> str:
    """Dispatch a chain of webhook nodes, one after the other, for the principal's key."""
    guard = AddressGuard(["127.0.0.1"])
    body = {
        "definitionId": "chain",
        "name": "chain",
        "nodes": [
            {"nodeId": n, "type": "webhook", "config": {"url": url, "authMode": "none"}}
            for n in nodes
        ],
        "edges": [{"from": a, "to": b} for a, b in itertools.pairwise(nodes)],
    }
    await DefinitionService(pool, Sealer(KEY), guard).create(
        principal, msgspec.convert(body, CreateDefinition)
    )
    bus = await Bus.connect(nats_url, name="test-worker-chains")
    try:
        executions = ExecutionService(engine, Sealer(KEY), guard, AccessClient(bus))
        dispatched = await executions.dispatch(principal, DispatchExecution(definitionId="chain"))
    finally:
        await bus.close()
    return dispatched.executionId


async def test_the_next_step_of_a_chain_is_held_by_the_worker_that_ended_the_last(
    pool: Pool, database_url: str, nats_url: str, receiver: tuple[Receiver, str]
) -> None:
    calls, url = receiver
    engine = Engine(pool, retry_delays_s=[0.2], max_steps_per_execution=100)
    execution_id = await _dispatch(pool, engine, nats_url, PRINCIPAL, ["w1", "w2", "w3"], url)
    # Another key's step, due as soon as w1: the queue would serve it before w2.
    await _dispatch(pool, engine, nats_url, OTHER_KEY, ["b1"], url)
    async with (
        WebhookClient(AddressGuard(["127.0.0.1"]), timeout_s=30.0) as client,
        holding(database_url) as holder,
    ):
        runners = NodeRunners(
            client, brands=["redline"], mail=None, slack=SlackSender(client), agents=None
        )
        worker = StepWorker(
            engine,
            runners,
            CallbackLinks(KEY, "http://127.0.0.1:1", "redline"),
            Sealer(KEY),
            concurrency=1,
            concurrency_per_key=1,
            lease_s=60,
            holder=holder,
        )
        running = asyncio.create_task(worker.run())
        try:
            await asyncio.wait_for(calls.second_called.wait(), 30)
            async with pool.acquire() as conn:
                steps = dict(
                    await conn.fetch(
                        "SELECT node_id, status FROM workflow.step WHERE execution_id = $1",
                        execution_id,
                    )
                )
                held_by = await conn.fetchval(
                    "SELECT holder FROM workflow.task t JOIN workflow.step s"
                    " USING (execution_id, step_id) WHERE s.node_id = 'w2' AND t.kind = 'run'"
                    " AND t.claim_token IS NOT NULL"
                )
            assert steps == {"w1": "completed", "w2": "running"}
            assert held_by == holder.number
            calls.release.set()
            async with asyncio.timeout(30):
                while True:
                    async with pool.acquire() as conn:
                        status = await conn.fetchval(
                            "SELECT array_agg(DISTINCT status) FROM workflow.execution"
                        )
                    if "running" not in status:
                        break
                    await asyncio.sleep(0.05)
            assert status == ["completed"]
            # The chain ran through; the other key's step came after it.
            assert calls.nodes == ["w1", "w2", "w3", "b1"]
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
