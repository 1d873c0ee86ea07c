"""The notify app as it runs, on real PostgreSQL and NATS with a real HTTPS receiver: execution
events published by workflow reach their receiver signed for every brand, in order, retried on
the workflow schedule of the settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from redline.bus import Bus
from redline.notify.app import create_app
from redline.notify.settings import NotifySettings
from redline.proto.rpc import Receiver
from redline.testing.receiver import HOST, WebhookReceiver
from services.notify.tests.workflow_support import (
    EXECUTION,
    SECRET,
    WorkflowSide,
    assert_signed,
    execution_event,
    headers_of,
    publish,
)


@pytest.fixture
async def notify(
    runtime_overrides: dict[str, Any], https_receiver: WebhookReceiver
) -> AsyncIterator[web.Application]:
    settings = NotifySettings(
        **runtime_overrides,
        webhook_allow=[HOST],
        webhook_ca_file=str(https_receiver.ca_file),
        header_brands=["redline", "velt"],
        # Basic webhooks would wait a minute: only the workflow schedule can make this quick.
        webhook_retry_schedule_s=[60.0],
        workflow_webhook_retry_schedule_s=[0.05, 0.05],
        webhook_retry_jitter=0.0,
    )
    runner = web.AppRunner(create_app(settings))
    await runner.setup()  # runs the app's start-up: migrations, consumers, the worker
    try:
        yield runner.app
    finally:
        await runner.cleanup()


async def test_execution_events_reach_their_receiver_signed_in_order_and_retried(
    notify: web.Application, bus: Bus, https_receiver: WebhookReceiver
) -> None:
    url = https_receiver.url("/executions")
    events = [execution_event(seq, seq - 1, url) for seq in (1, 2)]
    https_receiver.scripted = [503]

    async with WorkflowSide({EXECUTION: Receiver(url=url, secret=SECRET)}).serving(bus.nc):
        await publish(bus, *events)
        await https_receiver.wait_for(2)

    requests = https_receiver.requests
    assert [r.json()["seq"] for r in requests] == [1, 1, 2]
    assert [headers_of(r)["x-velt-attempt"] for r in requests] == ["0", "1", "0"]
    for received in requests:
        assert_signed(received, brands=("redline", "velt"))
