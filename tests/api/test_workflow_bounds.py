"""What one tenant's workflows can cost the others: repeated edges, executions that keep making
steps, templates that expand past any sensible message, and a backlog of due steps."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from redline.testing.api import ApiClient, StartApi
from tests.api.workflow_support import Workflow, definition, edge, mock_agent, webhook


async def test_identical_edges_start_one_step_per_node(api: ApiClient) -> None:
    flow = Workflow(api, await api.create_workspace())
    nodes = [mock_agent(f"a{i}") for i in range(5)]
    # Each pair joined three times over: one step per node, not 3^0 + 3^1 + ... + 3^4.
    edges = [edge(f"a{i}", f"a{i + 1}") for i in range(4) for _ in range(3)]
    await flow.create(definition("triple-chain", nodes, edges))

    execution = await flow.ended(await flow.dispatch("triple-chain"))

    assert execution["status"] == "completed"
    assert [s["nodeId"] for s in execution["steps"]] == [f"a{i}" for i in range(5)]


async def test_an_execution_that_would_pass_the_step_cap_fails_saying_so(
    start_api: StartApi,
) -> None:
    api = await start_api(max_steps_per_execution=6)
    flow = Workflow(api, await api.create_workspace())
    nodes = [mock_agent(f"a{i}") for i in range(10)]
    edges = [edge(f"a{i}", f"a{i + 1}") for i in range(9)]
    await flow.create(definition("long-chain", nodes, edges))

    execution_id = await flow.dispatch("long-chain")
    execution = await flow.ended(execution_id)

    assert execution["status"] == "failed"
    assert execution["failureReason"]["code"] == "step-limit-exceeded"
    assert "6 steps" in execution["failureReason"]["message"]
    assert [s["nodeId"] for s in execution["steps"]] == [f"a{i}" for i in range(6)]
    assert all(s["status"] == "completed" for s in execution["steps"])
    events = await flow.events(execution_id)
    assert events[-1]["type"] == "execution.failed"
    # It stays that size.
    await asyncio.sleep(0.3)
    assert len((await flow.execution(execution_id))["steps"]) == 6


async def test_a_template_rendering_past_its_cap_fails_the_step_once(api: ApiClient) -> None:
    flow = Workflow(api, await api.create_workspace())
    notify = {
        "nodeId": "notify",
        "type": "notification",
        # A channel id and no bot token: the body is rendered before the post is refused.
        "config": {
            "channel": "slack",
            "slackTarget": "C0123456",
            "bodyTemplate": "{{execution.triggerContext}}\n" * 120,
        },
    }
    await flow.create(definition("big-message", [notify], []))

    # 120 copies of a 600 KB context would be a 72 MB message.
    context = {"payload": "x" * 600_000}
    execution_id = await flow.dispatch("big-message", triggerContext=context)
    execution = await flow.ended(execution_id)

    assert execution["status"] == "failed"
    [step] = execution["steps"]
    assert step["status"] == "failed"
    assert step["error"]["code"] == "template-too-large"
    assert "renders to more than" in step["error"]["message"]
    types = [e["type"] for e in await flow.events(execution_id)]
    assert types == ["execution.dispatched", "step.failed", "execution.failed"]


class HeldReceiver:
    """Takes webhook calls and answers none of them until released."""

    def __init__(self) -> None:
        self.calls = 0
        self.release = asyncio.Event()
        self._arrived = asyncio.Condition()

    async def handle(self, request: web.Request) -> web.Response:
        await request.read()
        async with self._arrived:
            self.calls += 1
            self._arrived.notify_all()
        await self.release.wait()
        return web.json_response({"ok": True})

    async def until_calls(self, count: int) -> None:
        async with asyncio.timeout(10), self._arrived:
            await self._arrived.wait_for(lambda: self.calls >= count)


@pytest.fixture
async def held() -> AsyncIterator[tuple[HeldReceiver, str]]:
    receiver = HeldReceiver()
    app = web.Application()
    app.router.add_post("/hold", receiver.handle)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    yield receiver, f"http://127.0.0.1:{port}/hold"
    receiver.release.set()
    await runner.cleanup()


async def test_one_keys_backlog_of_steps_does_not_hold_back_another_key(
    start_api: StartApi, held: tuple[HeldReceiver, str]
) -> None:
    receiver, url = held
    api = await start_api(
        webhook_allow=["127.0.0.1"], step_concurrency=4, step_concurrency_per_key=2
    )
    busy = Workflow(api, await api.create_workspace())
    quiet = Workflow(api, await api.create_workspace())
    slow = webhook("call", url, authMode="none", timeoutMs=60000)
    await busy.create(definition("slow-calls", [slow], []))
    await quiet.create(definition("one-agent", [mock_agent("agent")], []))
    backlog = [await busy.dispatch("slow-calls") for _ in range(12)]
    # The busy key's steps hold as many of the process's slots as they are allowed to.
    await receiver.until_calls(2)

    quiet_run = await quiet.ended(await quiet.dispatch("one-agent"), timeout_s=10)

    assert quiet_run["status"] == "completed"
    assert receiver.calls == 2  # the busy key still has its backlog, and no more slots
    receiver.release.set()
    for execution_id in backlog:
        assert (await busy.ended(execution_id, timeout_s=30))["status"] == "completed"
