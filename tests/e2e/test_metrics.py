"""What `/metrics` tells an operator about the work behind the API: webhook delivery attempts by
how they ended, workflow steps by how long they took, and the knowledge ingest queue.

Metrics are a process's own, served on the port of its service only: the gateway, the public way
in, does not forward `/metrics` (cli/tests/test_gateway.py). These tests read them off the
all-in-one app in this process, as Prometheus reads a service's port.
"""

from __future__ import annotations

import asyncio
import time

from redline.testing.api import ApiClient
from redline.testing.receiver import WebhookReceiver
from tests.api.workflow_support import Workflow, definition, edge, mock_agent
from tests.e2e.webhook_flows import add_annotations, comment, enable_webhooks, notified


async def published(api: ApiClient, name: str, **labels: str) -> float | None:
    """One sample of `/metrics` in Prometheus's text format; None when it is not there."""
    async with api.session.get(api.base_url + "/metrics") as response:
        assert response.status == 200
        text = await response.text()
    wanted = sorted(f'{key}="{value}"' for key, value in labels.items())
    for line in text.splitlines():
        if line.startswith(name + ("{" if labels else " ")):
            label_text, _, value = line[len(name) :].rpartition(" ")
            if sorted(filter(None, label_text.strip("{}").split(","))) == wanted:
                return float(value)
    return None


async def sample(api: ApiClient, name: str, **labels: str) -> float:
    """A counter's sample; 0 before its first count."""
    return await published(api, name, **labels) or 0.0


async def until_sample(api: ApiClient, at_least: float, name: str, **labels: str) -> float:
    deadline = time.monotonic() + 15
    while (found := await sample(api, name, **labels)) < at_least:
        assert time.monotonic() < deadline, f"{name}{labels} stayed at {found}"
        await asyncio.sleep(0.05)
    return found


async def test_delivery_attempts_are_counted_by_how_they_ended(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("metrics-hooks@example.com")
    await enable_webhooks(api, ws, receiver, processed=False)
    attempts = "redline_webhook_delivery_attempts_total"
    succeeded = await sample(api, attempts, kind="basic", state="succeeded")
    retried = await sample(api, attempts, kind="basic", state="pending")
    receiver.scripted = [503]  # the first attempt fails and is retried

    await add_annotations(api, ws, notified(comment(), annotationId="a1"))

    await receiver.wait_for(1, path="/raw")  # the retry, answered 200
    assert await until_sample(api, succeeded + 1, attempts, kind="basic", state="succeeded")
    assert await sample(api, attempts, kind="basic", state="pending") == retried + 1


async def test_workflow_steps_are_timed_by_node_type_and_ending(api: ApiClient) -> None:
    ws = await api.create_workspace("metrics-flow@example.com")
    flow = Workflow(api, ws)
    await flow.create(
        definition("timed", [mock_agent("scan"), mock_agent("ship")], [edge("scan", "ship")])
    )
    count = "redline_workflow_step_duration_seconds_count"
    before = await sample(api, count, node_type="agent", status="completed")

    execution = await flow.ended(await flow.dispatch("timed"))

    assert execution["status"] == "completed"
    assert await sample(api, count, node_type="agent", status="completed") == before + 2


async def test_the_ingest_queue_depth_is_published(api: ApiClient) -> None:
    # Measured by the ingest worker from its start; nothing waits in a new system.
    assert await published(api, "redline_ingest_queue_depth") == 0
