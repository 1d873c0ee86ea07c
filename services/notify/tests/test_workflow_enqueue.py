"""The notify-workflow-webhooks consumer's handler against a real database, and the consumer on a
real NATS server: one delivery per execution event, its body as receivers read it, and an
execution's events queued in seq order whatever order they arrive in."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgspec
import pytest

from redline.bus import BatchConsumer, Bus
from redline.notify.workflow.credentials import WorkflowWebhookCredentials
from redline.notify.workflow.enqueue import EventsOutOfOrder, WorkflowEnqueuer
from redline.pg import Pool
from redline.proto.events import Event, ExecutionEventOut, WorkspaceCreated
from redline.proto.rpc import Receiver
from redline.proto.subjects import CONSUMER_NOTIFY_WORKFLOW, WORKFLOW_EXECUTION_EVENTS
from redline.runtime.tasks import running
from redline.testing.receiver import WebhookReceiver
from services.notify.tests.delivery_rows import row
from services.notify.tests.worker_support import all_in, eventually, worker
from services.notify.tests.workflow_support import (
    EXECUTION,
    SECRET,
    WorkflowSide,
    assert_signed,
    execution_event,
    publish,
)

URL = "https://hooks.example.com/workflow?token=t1"
RETENTION_S = 3600.0


DELIVERY_FIELDS = (
    "workspace_id",
    "api_key",
    "kind",
    "event_id",
    "event_type",
    "target",
    "url",
    "ordering_key",
    "retry_holds_line",
    "state",
)


def event(seq: int, previous_seq: int, **fields: Any) -> ExecutionEventOut:
    return execution_event(seq, previous_seq, URL, **fields)


async def handle(pool: Pool, *events: Event) -> None:
    await WorkflowEnqueuer(pool, RETENTION_S).handle(list(events))


async def queued(pool: Pool) -> list[str]:
    """Webhook ids, in id order."""
    rows = await pool.fetch("SELECT webhook_id FROM notify.delivery ORDER BY id")
    return [r["webhook_id"] for r in rows]


async def test_an_execution_event_becomes_a_delivery_to_its_receiver(pool: Pool) -> None:
    step = event(1, 0, timestamp_ms=1_700_000_000_123)
    ended = event(2, 1, status="completed", event_type="execution.completed", step_id=None)
    ended = msgspec.structs.replace(
        ended, event=msgspec.structs.replace(ended.event, data=None, timestamp=1_700_000_000_456)
    )

    await handle(pool, step, ended)

    stored = await row(pool, step.event.eventId)
    assert {name: stored[name] for name in DELIVERY_FIELDS} == {
        "workspace_id": "ws1",
        "api_key": "key1",
        "kind": "workflow",
        "event_id": step.event.eventId,
        "event_type": "step.completed",
        "target": "workflow",
        "url": URL,
        "ordering_key": EXECUTION,
        "retry_holds_line": True,
        "state": "pending",
    }
    bodies = await pool.fetch(
        "SELECT body FROM notify.delivery_body JOIN notify.delivery d ON d.id = delivery_id"
        " ORDER BY d.id"
    )
    # Compact, and in the order getEvents gives an event's fields, then what it is about.
    assert [bytes(r["body"]) for r in bodies] == [
        b'{"eventId":"evt_exec_1700000000000_a1b2c3_1","seq":1,"type":"step.completed",'
        b'"stepId":"step_1","timestamp":1700000000123,"correlationId":"corr-1",'
        b'"data":{"decision":"approve"},"event":"step.completed",'
        b'"executionId":"exec_1700000000000_a1b2c3","definitionId":"contract-review",'
        b'"status":"running"}',
        b'{"eventId":"evt_exec_1700000000000_a1b2c3_2","seq":2,"type":"execution.completed",'
        b'"stepId":null,"timestamp":1700000000456,"correlationId":"corr-1","data":null,'
        b'"event":"execution.completed","executionId":"exec_1700000000000_a1b2c3",'
        b'"definitionId":"contract-review","status":"completed"}',
    ]
    line = await pool.fetchrow("SELECT seq, ended_at FROM notify.delivery_line_seq")
    assert line["seq"] == 2
    assert line["ended_at"] is not None


async def test_a_redelivered_event_is_queued_once(pool: Pool) -> None:
    first, second = event(1, 0), event(2, 1)
    await handle(pool, first, second)
    await handle(pool, second, first)

    assert await queued(pool) == [first.event.eventId, second.event.eventId]


async def test_an_event_before_the_one_it_follows_waits_for_it(pool: Pool) -> None:
    await handle(pool, event(1, 0))

    with pytest.raises(EventsOutOfOrder, match=f"{EXECUTION} seq 3"):
        await handle(pool, event(3, 2))
    assert await queued(pool) == [event(1, 0).event.eventId]

    await handle(pool, event(2, 1))
    await handle(pool, event(3, 2))
    assert await queued(pool) == [event(seq, seq - 1).event.eventId for seq in (1, 2, 3)]


async def test_a_batch_is_queued_in_seq_order_whatever_order_it_came_in(pool: Pool) -> None:
    def other(seq: int, previous_seq: int) -> ExecutionEventOut:
        return event(seq, previous_seq, execution="exec_2")

    # Seqs may have gaps: an execution's internal events take numbers too.
    await handle(pool, event(7, 4), other(2, 0), event(4, 1), other(5, 2), event(1, 0))

    assert await queued(pool) == [
        event(1, 0).event.eventId,
        other(2, 0).event.eventId,
        event(4, 1).event.eventId,
        other(5, 2).event.eventId,
        event(7, 4).event.eventId,
    ]


async def test_the_events_that_may_be_queued_are_even_when_others_of_their_batch_wait(
    pool: Pool,
) -> None:
    early = event(3, 2)
    with pytest.raises(EventsOutOfOrder):
        await handle(pool, event(1, 0), early, event(1, 0, execution="exec_2"))

    assert await queued(pool) == [
        event(1, 0).event.eventId,
        event(1, 0, execution="exec_2").event.eventId,
    ]


async def test_an_event_older_than_the_retention_goes_without_the_one_it_follows(
    pool: Pool,
) -> None:
    now_ms = int(time.time() * 1000)
    old = event(6, 5, timestamp_ms=now_ms - int(RETENTION_S * 1000) - 60_000)
    young = event(9, 8, timestamp_ms=now_ms - int(RETENTION_S * 1000) + 60_000)

    await handle(pool, old)
    with pytest.raises(EventsOutOfOrder):
        await handle(pool, young)

    assert await queued(pool) == [old.event.eventId]


async def test_events_of_other_kinds_are_ignored(pool: Pool) -> None:
    await handle(pool, WorkspaceCreated(workspaceId="ws1", ownerEmail="o@example.com", name="W"))

    assert await queued(pool) == []


class Observed:
    """The enqueuer's handler, and an event set once it refused a batch."""

    def __init__(self, pool: Pool) -> None:
        self._enqueuer = WorkflowEnqueuer(pool, RETENTION_S)
        self.refused = asyncio.Event()

    async def handle(self, events: list[Event]) -> None:
        try:
            await self._enqueuer.handle(events)
        except EventsOutOfOrder:
            self.refused.set()
            raise


async def test_events_published_out_of_order_reach_the_receiver_in_order(
    pool: Pool, bus: Bus, https_receiver: WebhookReceiver
) -> None:
    url = https_receiver.url("/executions")
    events = [execution_event(seq, seq - 1, url) for seq in (1, 2, 3)]
    side = WorkflowSide({EXECUTION: Receiver(url=url, secret=SECRET)})
    observed = Observed(pool)
    consumer = BatchConsumer(
        bus.js,
        CONSUMER_NOTIFY_WORKFLOW,
        observed.handle,
        filter_subjects=[WORKFLOW_EXECUTION_EVENTS],
        retry_delay_s=0.05,
    )

    async with (
        side.serving(bus.nc),
        worker(
            pool,
            workflow_headers=WorkflowWebhookCredentials(bus.nc, ["redline"]),
            ca_file=str(https_receiver.ca_file),
        ),
        running(consumer.run(), name="consumer"),
    ):
        await publish(bus, events[0], events[2])
        # Seq 3 came first and was refused; seq 2 comes after.
        async with asyncio.timeout(10):
            await observed.refused.wait()
        await publish(bus, events[1])
        await eventually(lambda: all_in(pool, "succeeded", 3), what="three deliveries")

    delivered = https_receiver.delivered()
    assert [r.json()["seq"] for r in delivered] == [1, 2, 3]
    for received in delivered:
        assert_signed(received)
