"""The delivery worker against a real database and real receivers on this machine: a slow
receiver does not hold up the others, replicas share the work without sending anything twice,
a key's deliveries arrive in order, failures are retried or not, and a stopped worker gives its
claims back."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import msgspec
import pytest
from aiohttp import web

from redline.notify.deliveries import log_storage, storage
from redline.notify.deliveries.schedule import RetrySchedule
from redline.notify.deliveries.storage import ClaimedDelivery, NewDelivery
from redline.notify.deliveries.worker import DeliveryWorker, HeaderSource, Undeliverable
from redline.pg import Pool, create_pool
from redline.webhooks import AddressGuard, WebhookClient

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


@pytest.fixture
async def receivers() -> AsyncIterator[Callable[..., Awaitable[Receiver]]]:
    started: list[Receiver] = []

    async def start(delay_s: float = 0.0, statuses: Sequence[int] = ()) -> Receiver:
        receiver = Receiver(delay_s, statuses)
        await receiver.start()
        started.append(receiver)
        return receiver

    yield start
    for receiver in started:
        await receiver.stop()


@contextlib.asynccontextmanager
async def worker(
    pool: Pool,
    *,
    per_url_limit: int = 8,
    process_limit: int = 64,
    lease_s: float = 30.0,
    agent: str = "worker",
    header_source: HeaderSource | None = None,
) -> AsyncIterator[asyncio.Task[None]]:
    """A delivery worker with its own webhook client, running for the block."""
    async with WebhookClient(AddressGuard([HOST]), timeout_s=5, user_agent=agent) as client:
        delivery_worker = DeliveryWorker(
            pool,
            client,
            {"basic": header_source or NoHeaders()},
            SCHEDULE,
            process_limit=process_limit,
            per_url_limit=per_url_limit,
            lease_s=lease_s,
        )
        task = asyncio.create_task(delivery_worker.run())
        try:
            yield task
            assert not task.done(), "the worker stopped on its own"
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def new(webhook_id: str, url: str, key: str = "org1/doc1") -> NewDelivery:
    return NewDelivery(
        webhook_id=webhook_id,
        workspace_id="ws1",
        api_key="key1",
        kind="basic",
        event_id="evt_" + webhook_id,
        event_type="comment.add",
        target="raw",
        url=url,
        ordering_key=key,
        body=msgspec.json.encode({"webhookId": webhook_id, "key": key}),
    )


async def enqueue(pool: Pool, deliveries: Sequence[NewDelivery]) -> None:
    async with pool.acquire() as conn:
        assert await storage.enqueue(conn, deliveries) == len(deliveries)


async def states(pool: Pool) -> Counter[str]:
    rows = await pool.fetch("SELECT state FROM notify.delivery")
    return Counter(row["state"] for row in rows)


async def row(pool: Pool, webhook_id: str) -> Any:
    return await pool.fetchrow("SELECT * FROM notify.delivery WHERE webhook_id = $1", webhook_id)


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


async def test_a_slow_receiver_does_not_hold_up_a_fast_one(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    slow = await receivers(delay_s=1.0)
    fast = await receivers()
    # The slow receiver's deliveries come first.
    await enqueue(pool, [new(f"slow{i:02d}", slow.url, key=f"k{i}") for i in range(30)])
    await enqueue(pool, [new(f"fast{i:02d}", fast.url, key=f"k{i}") for i in range(30)])

    async with worker(pool, per_url_limit=4):
        await eventually(lambda: fast.answered == 30, what="the fast receiver's 30")
        slow_arrived, slow_answered = len(slow.arrived), slow.answered
        await eventually(lambda: all_in(pool, "succeeded", 60), timeout_s=20, what="every delivery")

    # When the fast receiver had everything, the slow one had seen at most its first two rounds.
    assert slow_arrived <= 8
    assert slow_answered <= 4
    assert sorted(fast.counts().values()) == [1] * 30
    assert sorted(slow.counts().values()) == [1] * 30
    # It was kept busy, and never had more than its limit at once.
    assert slow.max_in_flight == 4
    assert fast.max_in_flight <= 4


async def test_two_workers_share_the_work_and_send_each_delivery_once(
    database_url: str, pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    keys = [f"org1/doc{k}" for k in range(20)]
    deliveries = [new(f"d{i:03d}", receiver.url, key=keys[i // 10]) for i in range(200)]
    await enqueue(pool, deliveries)
    other_pool = await create_pool(database_url, max_size=6)
    try:
        async with (
            worker(pool, per_url_limit=8, process_limit=16, agent="replica-a"),
            worker(other_pool, per_url_limit=8, process_limit=16, agent="replica-b"),
        ):
            await eventually(
                lambda: all_in(pool, "succeeded", 200), timeout_s=20, what="200 deliveries"
            )
    finally:
        await other_pool.close()

    assert receiver.counts() == Counter({d.webhook_id: 1 for d in deliveries})
    assert set(receiver.agents) == {"replica-a", "replica-b"}
    # Each key's deliveries arrived one at a time and in the order they were enqueued, whoever
    # sent them; different keys went out side by side.
    assert receiver.max_key_in_flight == 1
    assert receiver.max_in_flight > 1
    for key in keys:
        expected = [d.webhook_id for d in deliveries if d.ordering_key == key]
        assert [w for w in receiver.arrived if w in set(expected)] == expected
    attempts = await pool.fetchval("SELECT count(*) FROM notify.delivery_attempt")
    assert attempts == 200


async def test_a_keys_deliveries_arrive_in_order(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(delay_s=0.002)
    deliveries = [new(f"d{i:02d}", receiver.url) for i in range(50)]
    await enqueue(pool, deliveries)

    async with worker(pool, per_url_limit=8):
        await eventually(lambda: all_in(pool, "succeeded", 50), what="50 deliveries")

    assert receiver.arrived == [d.webhook_id for d in deliveries]
    # One at a time: the next is claimed only once the previous one's result is recorded.
    assert receiver.max_in_flight == 1


async def test_a_failed_attempt_is_retried_and_every_attempt_recorded(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(statuses=[500])
    await enqueue(pool, [new("d1", receiver.url)])

    async with worker(pool):
        await eventually(lambda: all_in(pool, "succeeded", 1), what="the retry")

    delivery = await row(pool, "d1")
    assert delivery["attempts"] == 2
    assert delivery["last_status"] == 200
    assert delivery["last_error"] is None
    assert delivery["finished_at"] is not None
    async with pool.acquire() as conn:
        first, second = await log_storage.attempts_of(conn, [delivery["id"]])
    assert (first.attempt, first.status, first.error) == (1, 500, "HTTP 500")
    assert (second.attempt, second.status, second.error) == (2, 200, None)
    # The retry waited for its turn in the schedule.
    assert (second.started_at - first.started_at).total_seconds() >= 0.05
    assert receiver.arrived == ["d1", "d1"]


async def test_a_delivery_fails_for_good_after_the_last_retry(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(statuses=[503] * 10)
    await enqueue(pool, [new("d1", receiver.url)])

    async with worker(pool):
        await eventually(lambda: all_in(pool, "failed", 1), what="the failure")
        delivery = await row(pool, "d1")

    assert delivery["attempts"] == len(SCHEDULE.waits_s) + 1
    assert delivery["last_status"] == 503
    assert delivery["last_error"] == "HTTP 503"
    assert receiver.arrived == ["d1"] * 3


@pytest.mark.parametrize(
    "url",
    ["https://169.254.169.254/latest/meta-data", "https://localhost/hook", "http://example.com/"],
)
async def test_a_blocked_target_fails_at_once(pool: Pool, url: str) -> None:
    await enqueue(pool, [new("d1", url)])

    async with worker(pool):
        await eventually(lambda: all_in(pool, "failed", 1), what="the failure")

    delivery = await row(pool, "d1")
    assert delivery["attempts"] == 1
    assert delivery["last_status"] is None
    assert delivery["last_error"].startswith("blocked: ")
    async with pool.acquire() as conn:
        [attempt] = await log_storage.attempts_of(conn, [delivery["id"]])
    assert attempt.error == delivery["last_error"]


async def test_an_undeliverable_delivery_fails_without_a_request(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    await enqueue(pool, [new("d1", receiver.url)])

    async with worker(pool, header_source=KeyGone()):
        await eventually(lambda: all_in(pool, "failed", 1), what="the failure")

    delivery = await row(pool, "d1")
    assert (delivery["attempts"], delivery["last_error"]) == (1, "the API key no longer exists")
    assert receiver.arrived == []


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


async def test_a_delivery_whose_send_breaks_is_given_back_and_the_line_goes_on(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    await enqueue(pool, [new(f"d{i}", receiver.url, key=f"k{i}") for i in range(5)])
    source = FailsOnce("d0")

    async with worker(pool, per_url_limit=1, header_source=source):
        await eventually(
            lambda: sorted(receiver.counts()) == ["d1", "d2", "d3", "d4"], what="the others"
        )
        broken = await row(pool, "d0")

    assert source.failed
    # Given back without an attempt, to be tried again once its deferral is over.
    assert (broken["state"], broken["attempts"], broken["claim_token"]) == ("pending", 0, None)
    assert broken["next_attempt_at"] > broken["created_at"]


async def test_a_stopped_worker_gives_its_claims_back(
    database_url: str, pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers()
    receiver.gate.clear()  # requests wait until the gate opens
    deliveries = [new(f"d{i}", receiver.url, key=f"k{i}") for i in range(6)]
    await enqueue(pool, deliveries)

    async with worker(pool, per_url_limit=2, lease_s=60):
        # Two requests under way, four more claimed and waiting for their turn.
        await eventually(lambda: receiver.in_flight == 2, what="two requests in flight")
        await eventually(lambda: all_in(pool, "sending", 6), what="six claims")

    rows = await pool.fetch("SELECT * FROM notify.delivery")
    assert {(r["state"], r["claim_token"], r["attempts"]) for r in rows} == {("pending", None, 0)}
    assert await pool.fetchval("SELECT count(*) FROM notify.delivery_attempt") == 0

    receiver.gate.set()
    first_round = len(receiver.arrived)
    other_pool = await create_pool(database_url, max_size=6)
    try:
        # Another worker sends them long before the lease would have run out.
        async with worker(other_pool, per_url_limit=2, lease_s=60):
            await eventually(
                lambda: all_in(pool, "succeeded", 6), timeout_s=10, what="the other worker"
            )
    finally:
        await other_pool.close()
    assert sorted(receiver.arrived[first_round:]) == sorted(d.webhook_id for d in deliveries)


async def test_claims_waiting_for_a_slow_receiver_keep_their_lease(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]]
) -> None:
    receiver = await receivers(delay_s=0.6)
    deliveries = [new(f"d{i}", receiver.url, key=f"k{i}") for i in range(4)]
    await enqueue(pool, deliveries)

    # One request at a time: the last claim waits nearly twice as long as its lease.
    async with worker(pool, per_url_limit=1, lease_s=1.0):
        await eventually(lambda: all_in(pool, "succeeded", 4), what="four deliveries")

    assert receiver.counts() == Counter({d.webhook_id: 1 for d in deliveries})
    assert receiver.max_in_flight == 1
