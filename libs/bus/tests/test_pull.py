"""The puller against a real nats-server: batches in stream order, no wait when messages are
there, the first arrivals of a long poll, a timeout when nothing comes, an error for a consumer
that does not exist."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

import pytest
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig

from redline.bus.pull import Puller, PullFailed
from redline.proto.events import WorkspaceCreated, decode_event
from redline.proto.subjects import STREAM

if TYPE_CHECKING:
    from conftest import Harness


async def durable(harness: Harness, name: str) -> Puller:
    await harness.bus.js.add_consumer(
        STREAM,
        ConsumerConfig(durable_name=name, ack_policy=AckPolicy.EXPLICIT, ack_wait=30),
    )
    puller = Puller(harness.bus.nc, STREAM, name)
    await puller.start()
    return puller


def workspace_ids(messages: list[Msg]) -> list[str]:
    events = [decode_event(m.data) for m in messages]
    return [e.workspaceId for e in events if isinstance(e, WorkspaceCreated)]


async def test_batches_come_in_stream_order_and_never_exceed_the_batch(harness: Harness) -> None:
    events = harness.events(25, "order")
    await harness.publish(events)
    puller = await durable(harness, "pull-order")
    try:
        got: list[str] = []
        while len(got) < 25:
            batch = await puller.fetch(10, 2.0)
            assert 1 <= len(batch) <= 10
            for message in batch:
                await message.ack()
            got += workspace_ids(batch)
    finally:
        await puller.stop()

    assert got == [e.workspaceId for e in events if isinstance(e, WorkspaceCreated)]


async def test_messages_already_there_come_without_waiting_out_the_timeout(
    harness: Harness,
) -> None:
    await harness.publish(harness.events(3, "ready"))
    puller = await durable(harness, "pull-ready")
    try:
        started = time.monotonic()
        batch = await puller.fetch(100, 5.0)
        elapsed = time.monotonic() - started
    finally:
        await puller.stop()

    assert workspace_ids(batch) == ["ready0", "ready1", "ready2"]
    assert elapsed < 2.5  # a wait for the full batch would take the whole 5 s


async def test_a_long_poll_returns_what_is_published_while_it_waits(harness: Harness) -> None:
    puller = await durable(harness, "pull-later")
    try:
        fetching = asyncio.create_task(puller.fetch(100, 5.0))
        await asyncio.sleep(0.3)
        assert not fetching.done()
        await harness.publish(harness.events(1, "later"))
        batch = await asyncio.wait_for(fetching, 2.5)
    finally:
        await puller.stop()

    assert workspace_ids(batch) == ["later0"]


async def test_nothing_to_fetch_times_out(harness: Harness) -> None:
    puller = await durable(harness, "pull-empty")
    try:
        with pytest.raises(TimeoutError):
            await puller.fetch(10, 0.3)
    finally:
        await puller.stop()


async def test_a_consumer_that_does_not_exist_fails_the_fetch(harness: Harness) -> None:
    puller = Puller(harness.bus.nc, STREAM, "pull-missing")
    await puller.start()
    try:
        with pytest.raises(PullFailed):
            await puller.fetch(10, 2.0)
    finally:
        await puller.stop()


async def test_an_idle_consumer_after_single_arrivals_does_not_keep_asking(
    harness: Harness,
) -> None:
    """Events that arrive one at a time, each during a long poll, must not leave pull requests
    behind whose later endings wake every following wait: an idle consumer would then ask the
    server over and over, for good."""
    requests = 0

    async def counted(_: Msg) -> None:
        nonlocal requests
        requests += 1

    puller = await durable(harness, "pull-idle")
    watch = await harness.bus.nc.subscribe(
        f"$JS.API.CONSUMER.MSG.NEXT.{STREAM}.pull-idle", cb=counted
    )
    try:

        async def consume_forever() -> None:
            while True:
                try:
                    for message in await puller.fetch(100, 0.5):
                        await message.ack()
                except TimeoutError:
                    continue

        consuming = asyncio.create_task(consume_forever())
        for i in range(20):
            await harness.publish(harness.events(1, f"single{i}"))
            await asyncio.sleep(0.02)
        # Every request left over from the arrivals has expired by now.
        await asyncio.sleep(1.0)
        await harness.bus.nc.flush()
        before = requests
        await asyncio.sleep(2.0)
        await harness.bus.nc.flush()
        idle_requests = requests - before
        consuming.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await consuming
    finally:
        await watch.unsubscribe()
        await puller.stop()

    # Waiting out its 0.5 s polls, an idle consumer sends two requests (one that does not wait,
    # one long poll) per poll: 8 in 2 s, with room for a boundary.
    assert idle_requests <= 10, idle_requests
