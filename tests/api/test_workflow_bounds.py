"""What one tenant's workflows can cost the others: repeated edges, executions that keep making
steps, and templates that expand past any sensible message."""

from __future__ import annotations

import asyncio

from redline.testing.api import ApiClient, StartApi
from tests.api.workflow_support import Workflow, definition, edge, mock_agent


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
