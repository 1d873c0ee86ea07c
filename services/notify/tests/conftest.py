"""Fixtures of notify's own tests: a pool on a fresh database with notify's schema, receivers
standing for customers' servers, and a connection to this test's NATS server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

import pytest

from redline.bus import Bus, ensure_events_stream
from redline.notify.app import MIGRATIONS, SCHEMA
from redline.pg import Pool, create_pool, migrate
from redline.testing.receiver import WebhookReceiver
from services.notify.tests.worker_support import Receiver


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[Pool]:
    pool = await create_pool(database_url, max_size=6)
    async with pool.acquire() as conn:
        await migrate(conn, SCHEMA, MIGRATIONS)
    yield pool
    await pool.close()


@pytest.fixture
async def receivers() -> AsyncIterator[Callable[..., Awaitable[Receiver]]]:
    """Start plain HTTP receivers that answer after `delay_s`, with `statuses` first."""
    started: list[Receiver] = []

    async def start(delay_s: float = 0.0, statuses: Sequence[int] = ()) -> Receiver:
        receiver = Receiver(delay_s, statuses)
        await receiver.start()
        started.append(receiver)
        return receiver

    yield start
    for receiver in started:
        await receiver.stop()


@pytest.fixture
async def https_receiver(tmp_path: Path) -> AsyncIterator[WebhookReceiver]:
    """An HTTPS receiver that records every request (its CA in `ca_file`)."""
    receiver = WebhookReceiver(tmp_path / "receiver-tls")
    await receiver.start()
    try:
        yield receiver
    finally:
        await receiver.stop()


@pytest.fixture
async def bus(nats_url: str) -> AsyncIterator[Bus]:
    bus = await Bus.connect(nats_url, name="notify-tests")
    try:
        await ensure_events_stream(bus.js)
        yield bus
    finally:
        await bus.close()
