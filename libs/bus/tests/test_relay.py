"""The outbox relay against real PostgreSQL and a real nats-server: what reaches the stream, in
which order, and what happens when NATS goes away or the relay dies between publish and mark."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pytest

from redline.bus import DurableConsumer, OutboxRelay
from redline.local.servers import LocalNats
from redline.pg import write_events
from redline.pg.outbox import OutboxRow
from redline.proto import request_context
from redline.proto.events import decode_event
from redline.proto.request_context import REQUEST_ID_HEADER
from redline.proto.subjects import STREAM

if TYPE_CHECKING:
    from conftest import Harness

SUBJECT = "evt.identity.workspace.created"


async def test_committed_rows_reach_the_stream_in_order_and_are_marked_sent(
    harness: Harness,
) -> None:
    first, rolled_back, second = (
        harness.events(30, "a"),
        harness.events(5, "r"),
        harness.events(20, "b"),
    )
    await harness.write(first)

    async def failing_change() -> None:
        async with harness.pool.acquire() as conn, conn.transaction():
            await write_events(conn, harness.schema, rolled_back)
            raise RuntimeError("the change failed, so its events never happened")

    with pytest.raises(RuntimeError):
        await failing_change()
    await harness.write(second)
    relay = OutboxRelay(harness.pool, harness.bus.js, [harness.schema], batch_size=7)

    async def all_sent() -> bool:
        return await harness.unsent() == 0 and await harness.stream_count() == 50

    async with harness.running(relay.run()):
        await harness.eventually(all_sent, what="50 events relayed")

    messages = await harness.stream_messages()
    expected = first + second
    assert [msg_id for _, msg_id, _ in messages] == [event.id for event in expected]
    assert [subject for subject, _, _ in messages] == [SUBJECT] * 50
    assert [decode_event(payload) for _, _, payload in messages] == expected
    async with harness.pool.acquire() as conn:
        left = await conn.fetchval("SELECT count(*) FROM svc.outbox")
    assert left == 0  # published rows are deleted; the stream keeps the events


async def test_a_commit_wakes_the_relay_without_waiting_for_the_poll(harness: Harness) -> None:
    relay = OutboxRelay(harness.pool, harness.bus.js, [harness.schema], poll_interval_s=60)

    async def published() -> bool:
        return await harness.stream_count() == 3

    async with harness.running(relay.run()):
        await asyncio.sleep(0.3)  # the relay has found nothing and waits for up to a minute
        await harness.write(harness.events(3))
        await harness.eventually(published, timeout_s=5, what="NOTIFY wake-up")


async def test_the_relay_listens_again_when_its_listening_connection_is_lost(
    harness: Harness,
) -> None:
    relay = OutboxRelay(harness.pool, harness.bus.js, [harness.schema], poll_interval_s=60)

    async def listening_pids() -> list[int]:
        async with harness.pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT pid FROM pg_stat_activity"
                " WHERE datname = current_database() AND query LIKE 'LISTEN%'"
            )
        return [row["pid"] for row in rows]

    async def listening() -> bool:
        return len(await listening_pids()) == 1

    async def published() -> bool:
        return await harness.stream_count() == 2

    async with harness.running(relay.run()):
        await harness.eventually(listening, what="the relay listens")
        [old_pid] = await listening_pids()
        async with harness.pool.acquire() as conn:
            await conn.execute("SELECT pg_terminate_backend($1)", old_pid)

        async def listening_anew() -> bool:
            pids = await listening_pids()
            return len(pids) == 1 and pids != [old_pid]

        await harness.eventually(listening_anew, timeout_s=5, what="a new LISTEN")
        await harness.write(harness.events(2))
        await harness.eventually(published, timeout_s=5, what="NOTIFY on the new connection")


async def test_events_written_while_nats_is_down_are_delivered_exactly_once_when_it_returns(
    harness: Harness, nats_server: LocalNats
) -> None:
    relay = OutboxRelay(harness.pool, harness.bus.js, [harness.schema], poll_interval_s=0.2)
    consumer = DurableConsumer(harness.bus.js, "effects", harness.handler("effects"))
    written = []

    async def disconnected() -> bool:
        return not harness.bus.connected

    async def all_handled() -> bool:
        return await harness.effect_count() >= 200

    async with harness.running(relay.run(), consumer.run()) as tasks:
        nats_server.stop()
        await harness.eventually(disconnected, what="client notices the outage")

        # The API side: writes commit at PostgreSQL speed, whatever NATS is doing.
        started = time.monotonic()
        for chunk in range(20):
            events = harness.events(10, f"c{chunk}-")
            await harness.write(events)
            written.extend(events)
        assert time.monotonic() - started < 5

        await asyncio.sleep(1.5)  # the relay retries meanwhile
        assert await harness.unsent() == 200
        assert not any(task.done() for task in tasks)

        nats_server.start()
        await harness.eventually(all_handled, timeout_s=30, what="200 effects")
        await asyncio.sleep(0.5)  # room for a duplicate to show up, if one were coming

    effects = [event_id for event_id, _ in await harness.effects()]
    assert sorted(effects) == sorted(event.id for event in written)
    assert await harness.stream_count() == 200
    assert [msg_id for _, msg_id, _ in await harness.stream_messages()] == [e.id for e in written]
    assert await harness.unsent() == 0


class CrashBeforeMark(OutboxRelay):
    """A relay process that dies after JetStream acked the batch but before marking it sent."""

    async def _publish(self, rows: Sequence[OutboxRow]) -> None:
        await super()._publish(rows)
        raise RuntimeError("crashed before marking the batch sent")


async def test_a_batch_published_again_after_a_crash_is_stored_once(harness: Harness) -> None:
    events = harness.events(20)
    await harness.write(events)

    with pytest.raises(RuntimeError, match="crashed"):
        await CrashBeforeMark(harness.pool, harness.bus.js, [harness.schema]).relay_pending()
    assert await harness.unsent() == 20
    assert await harness.stream_count() == 20

    relay = OutboxRelay(harness.pool, harness.bus.js, [harness.schema])
    assert await relay.relay_pending() == 20
    assert await relay.relay_pending() == 0
    assert await harness.unsent() == 0
    assert [msg_id for _, msg_id, _ in await harness.stream_messages()] == [e.id for e in events]


async def test_relay_fails_fast_while_disconnected_and_publishes_nothing(
    harness: Harness, nats_server: LocalNats
) -> None:
    await harness.write(harness.events(5))
    relay = OutboxRelay(harness.pool, harness.bus.js, [harness.schema], publish_timeout_s=30)
    nats_server.stop()

    async def disconnected() -> bool:
        return not harness.bus.connected

    await harness.eventually(disconnected, what="client notices the outage")
    started = time.monotonic()
    with pytest.raises(ConnectionError):
        await relay.relay_pending()
    assert time.monotonic() - started < 1  # not the 30 s publish timeout
    assert await harness.unsent() == 5
    # Nothing waits in the client's reconnect buffer to be sent behind the relay's back.
    assert harness.bus.nc.pending_data_size == 0


async def test_events_go_out_with_the_id_of_the_request_that_wrote_them(harness: Harness) -> None:
    from_request, from_background = harness.events(2, "r"), harness.events(1, "b")
    with request_context.serving("req-9", "ws_1"):
        await harness.write(from_request)
    await harness.write(from_background)

    relay = OutboxRelay(harness.pool, harness.bus.js, [harness.schema])
    assert await relay.relay_pending() == 3

    headers = [(await harness.bus.js.get_msg(STREAM, seq)).headers or {} for seq in range(1, 4)]
    assert [h.get(REQUEST_ID_HEADER) for h in headers] == ["req-9", "req-9", None]
    assert [h["Nats-Msg-Id"] for h in headers] == [e.id for e in from_request + from_background]
