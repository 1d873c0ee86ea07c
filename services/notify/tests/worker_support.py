"""Receivers, header sources and a running worker for the delivery worker's tests."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence

import msgspec
import pytest
from aiohttp import web

from redline.notify.deliveries.rates import RateSource
from redline.notify.deliveries.schedule import RetrySchedule
from redline.notify.deliveries.storage import ClaimedDelivery, NewDelivery
from redline.notify.deliveries.worker import DEFER_S, DeliveryWorker, HeaderSource, Undeliverable
from redline.pg import Pool
from redline.webhooks import AddressGuard, WebhookClient
from services.notify.tests import delivery_rows

HOST = "127.0.0.1"
# Quick retries, so that a test sees them.
SCHEDULE = RetrySchedule([0.05, 0.05], jitter=0.0)


class Receiver:
    """A customer's server: records each request on arrival, answers after `delay_s` (and once
    `gate` is open), with the scripted statuses first and then 200."""

    def __init__(self, delay_s: float = 0.0, statuses: Sequence[int] = ()) -> None:
        self.delay_s = delay_s
        self.statuses = list(statuses)
        self.gate = asyncio.Event()
        self.gate.set()
        self.arrived: list[str] = []  # webhook ids, in arrival order
        self.arrived_at: list[float] = []  # time.monotonic() of each arrival, in order
        self.agents: Counter[str] = Counter()
        self.answered = 0
        self.in_flight = 0
        self.max_in_flight = 0
        # Requests under way per ordering key (named in the body), and the most at once.
        self.key_in_flight: Counter[str] = Counter()
        self.max_key_in_flight = 0
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._receive)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, HOST, 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.Server)
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://{HOST}:{port}/hook"

    async def stop(self) -> None:
        self.gate.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _receive(self, request: web.Request) -> web.Response:
        key = msgspec.json.decode(await request.read())["key"]
        self.arrived.append(request.headers["webhook-id"])
        self.arrived_at.append(time.monotonic())
        self.agents[request.headers.get("User-Agent", "")] += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.key_in_flight[key] += 1
        self.max_key_in_flight = max(self.max_key_in_flight, self.key_in_flight[key])
        try:
            # Always a pause, however short, so that requests under way overlap here.
            await asyncio.sleep(self.delay_s)
            await self.gate.wait()
        finally:
            self.in_flight -= 1
            self.key_in_flight[key] -= 1
        self.answered += 1
        return web.Response(status=self.statuses.pop(0) if self.statuses else 200)

    def counts(self) -> Counter[str]:
        return Counter(self.arrived)


class NoHeaders:
    async def headers(self, delivery: ClaimedDelivery, timestamp: int) -> dict[str, str]:
        return {}


class KeyGone:
    async def headers(self, delivery: ClaimedDelivery, timestamp: int) -> dict[str, str]:
        raise Undeliverable("the API key no longer exists")


@contextlib.asynccontextmanager
async def worker(
    pool: Pool,
    *,
    per_url_limit: int = 8,
    per_url_window: int | None = None,
    process_limit: int = 64,
    lease_s: float = 30.0,
    defer_s: float = DEFER_S,
    agent: str = "worker",
    header_source: HeaderSource | None = None,
    workflow_headers: HeaderSource | None = None,
    kind_schedules: Mapping[str, RetrySchedule] | None = None,
    rate_sources: Mapping[str, RateSource] | None = None,
    ca_file: str | None = None,
) -> AsyncIterator[DeliveryWorker]:
    """A delivery worker with its own webhook client, running for the block."""
    async with WebhookClient(
        AddressGuard([HOST]), timeout_s=5, user_agent=agent, ca_file=ca_file
    ) as client:
        delivery_worker = DeliveryWorker(
            pool,
            client,
            {"basic": header_source or NoHeaders(), "workflow": workflow_headers or NoHeaders()},
            SCHEDULE,
            rate_sources=rate_sources,
            kind_schedules=kind_schedules,
            process_limit=process_limit,
            per_url_limit=per_url_limit,
            per_url_window=per_url_window,
            lease_s=lease_s,
            holder=None,
            defer_s=defer_s,
        )
        task = asyncio.create_task(delivery_worker.run())
        try:
            yield delivery_worker
            assert not task.done(), "the worker stopped on its own"
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def new(webhook_id: str, url: str, key: str = "org1/doc1", *, held: bool = False) -> NewDelivery:
    """A basic webhook's delivery, or with `held` a workflow one (its retry holds its line)."""
    return NewDelivery(
        webhook_id=webhook_id,
        workspace_id="ws1",
        api_key="key1",
        kind="workflow" if held else "basic",
        event_id="evt_" + webhook_id,
        event_type="comment.add",
        target="workflow" if held else "raw",
        url=url,
        ordering_key=key,
        body=msgspec.json.encode({"webhookId": webhook_id, "key": key}),
        retry_holds_line=held,
    )


async def enqueue(pool: Pool, deliveries: Sequence[NewDelivery]) -> None:
    """Queue deliveries that are all new."""
    assert await delivery_rows.enqueue(pool, deliveries) == len(deliveries)


async def warm_up(pool: Pool, receiver: Receiver, count: int) -> None:
    """Have a running worker send `count` deliveries to `receiver` and see them answered at
    once: from then on it claims that receiver well ahead of its requests."""
    await enqueue(pool, [new(f"early{i}", receiver.url, key=f"e{i}") for i in range(count)])
    await eventually(lambda: all_in(pool, "succeeded", count), what=f"{count} early deliveries")


async def states(pool: Pool) -> Counter[str]:
    rows = await pool.fetch("SELECT state FROM notify.delivery")
    return Counter(row["state"] for row in rows)


async def eventually(
    check: Callable[[], Awaitable[bool] | bool], *, timeout_s: float = 10.0, what: str
) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        outcome = check()
        if outcome if isinstance(outcome, bool) else await outcome:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"{what} not within {timeout_s} s")
        await asyncio.sleep(0.01)


async def all_in(pool: Pool, state: str, count: int) -> bool:
    return (await states(pool))[state] == count


class FailsOnce:
    """A header source with a fault of its own (not the receiver's) the first time it sees
    `webhook_id`."""

    def __init__(self, webhook_id: str) -> None:
        self._webhook_id = webhook_id
        self.failed = False

    async def headers(self, delivery: ClaimedDelivery, timestamp: int) -> dict[str, str]:
        if delivery.webhook_id == self._webhook_id and not self.failed:
            self.failed = True
            raise RuntimeError("a fault on this side")
        return {}
