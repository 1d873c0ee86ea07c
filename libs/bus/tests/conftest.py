"""Fixtures for the bus tests: a migrated schema on real PostgreSQL, a Bus on a real nats-server,
and a `Harness` with the few helpers the relay and consumer tests share (test modules cannot
import each other under --import-mode=importlib)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

import pytest

from redline.bus import Bus, ensure_events_stream
from redline.pg import Pool, claim_event, create_pool, migrate, write_events
from redline.proto.events import Event, WorkspaceCreated, encode_event
from redline.proto.request_context import REQUEST_ID_HEADER
from redline.proto.subjects import STREAM

SCHEMA = "svc"  # spelled out in the SQL below


@pytest.fixture
async def pool(database_url: str, tmp_path: Path) -> AsyncIterator[Pool]:
    migrations = tmp_path / "migrations"
    migrations.mkdir()
    pool = await create_pool(database_url, max_size=10)
    try:
        async with pool.acquire() as conn:
            await migrate(conn, SCHEMA, migrations)
            # What test handlers do; no unique constraint, so a duplicate effect stays visible.
            await conn.execute("CREATE TABLE svc.effects (event_id text NOT NULL, tag text)")
        yield pool
    finally:
        await pool.close()


@pytest.fixture
async def bus(nats_url: str) -> AsyncIterator[Bus]:
    bus = await Bus.connect(nats_url, name="bus-tests")
    try:
        await ensure_events_stream(bus.js)
        yield bus
    finally:
        await bus.close()


@pytest.fixture
def harness(pool: Pool, bus: Bus) -> Harness:
    return Harness(pool, bus)


class Harness:
    schema = SCHEMA

    def __init__(self, pool: Pool, bus: Bus) -> None:
        self.pool = pool
        self.bus = bus

    @staticmethod
    def events(count: int, prefix: str = "ws") -> list[Event]:
        return [
            WorkspaceCreated(workspaceId=f"{prefix}{i}", ownerEmail=f"o{i}@example.com", name="W")
            for i in range(count)
        ]

    async def write(self, events: Sequence[Event]) -> None:
        """Write events to the outbox in one committed transaction, as a service would."""
        async with self.pool.acquire() as conn, conn.transaction():
            await write_events(conn, SCHEMA, events)

    async def publish(self, events: Sequence[Event], request_id: str | None = None) -> None:
        """Publish straight to the stream (consumer tests that do not need the relay), as the
        relay would for events written while serving `request_id`."""
        for event in events:
            headers = {"Nats-Msg-Id": event.id}
            if request_id is not None:
                headers[REQUEST_ID_HEADER] = request_id
            await self.bus.js.publish(event.subject, encode_event(event), headers=headers)

    def handler(self, consumer: str, tag: str = "") -> Callable[[Event], Awaitable[None]]:
        """A handler as services write them: claim the event id and make the effect in one
        transaction, so a redelivery does nothing."""

        async def handle(event: Event) -> None:
            async with self.pool.acquire() as conn, conn.transaction():
                if await claim_event(conn, SCHEMA, consumer, event.id):
                    await conn.execute(
                        "INSERT INTO svc.effects (event_id, tag) VALUES ($1, $2)",
                        event.id,
                        tag,
                    )

        return handle

    async def effects(self) -> list[tuple[str, str]]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch("SELECT event_id, tag FROM svc.effects")
        return [(row["event_id"], row["tag"]) for row in rows]

    async def effect_count(self) -> int:
        return len(await self.effects())

    async def unsent(self) -> int:
        async with self.pool.acquire() as conn:
            count: int = await conn.fetchval("SELECT count(*) FROM svc.outbox")
        return count

    async def stream_count(self) -> int:
        info = await self.bus.js.stream_info(STREAM)
        assert info.state.messages is not None
        return info.state.messages

    async def stream_messages(self) -> list[tuple[str, str, bytes]]:
        """(subject, Nats-Msg-Id, payload) of every message on the stream, in stream order."""
        found = []
        for seq in range(1, await self.stream_count() + 1):
            msg = await self.bus.js.get_msg(STREAM, seq)
            assert msg.subject is not None
            assert msg.data is not None
            found.append((msg.subject, (msg.headers or {}).get("Nats-Msg-Id", ""), msg.data))
        return found

    @staticmethod
    async def eventually(
        check: Callable[[], Awaitable[bool]], *, timeout_s: float = 15.0, what: str = "condition"
    ) -> None:
        """Wait until `check()` is true; fail the test if it is not within `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while True:
            with contextlib.suppress(Exception):
                if await check():
                    return
            if time.monotonic() > deadline:
                pytest.fail(f"{what} not met within {timeout_s}s")
            await asyncio.sleep(0.05)

    @staticmethod
    @contextlib.asynccontextmanager
    async def running(*work: Coroutine[Any, Any, None]) -> AsyncIterator[list[asyncio.Task[None]]]:
        """Run `work` as tasks for the block; fail if one ended early, cancel them at the end."""
        tasks = [asyncio.create_task(w) for w in work]
        try:
            yield tasks
            for task in tasks:
                if task.done():
                    task.result()  # re-raises what killed it
                    pytest.fail("a background task ended early")
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
