"""What a durable consumer tells operators: its lag, its redeliveries, and the events it could not
decode, counted, with one log line per minute rather than one per event."""

from __future__ import annotations

import logging
from collections import Counter
from typing import TYPE_CHECKING

import pytest
from prometheus_client import REGISTRY

from redline.bus import DurableConsumer
from redline.proto.events import Event

if TYPE_CHECKING:
    from conftest import Harness


def value(sample: str, consumer: str) -> float | None:
    return REGISTRY.get_sample_value(sample, {"consumer": consumer})


async def test_undecodable_events_are_counted_and_logged_once_a_minute(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="redline.bus.consumer")
    good = harness.events(1)
    record = harness.handler("counting")

    async def handled() -> bool:
        return await harness.effect_count() == 1

    consumer = DurableConsumer(harness.bus.js, "counting", record)
    async with harness.running(consumer.run()):
        for _ in range(20):
            await harness.bus.js.publish("evt.x", b"{not an event")
        await harness.publish(good)
        await harness.eventually(handled, what="the event after the bad ones")

    assert value("redline_consumer_undecodable_total", "counting") == 20
    lines = [r.getMessage() for r in caplog.records if "undecodable" in r.getMessage()]
    assert lines == ["consumer counting: dropped 1 undecodable event(s), the last on evt.x"]


async def test_redeliveries_are_counted_and_the_lag_is_zero_once_caught_up(
    harness: Harness,
) -> None:
    events = harness.events(3)
    attempts: Counter[str] = Counter()
    record = harness.handler("lagging")

    async def handler(event: Event) -> None:
        attempts[event.id] += 1
        if attempts[event.id] == 1:
            raise RuntimeError("a dependency was briefly down")
        await record(event)

    async def all_handled() -> bool:
        return await harness.effect_count() == 3

    consumer = DurableConsumer(harness.bus.js, "lagging", handler, retry_delay_s=0.05)
    async with harness.running(consumer.run()):
        await harness.publish(events)
        await harness.eventually(all_handled, what="3 effects")

    assert value("redline_consumer_redeliveries_total", "lagging") == 3
    assert value("redline_consumer_pending", "lagging") == 0
