"""The delivery table's statements against a real database: enqueue, claim (ordering per key,
the per-URL limit, leases, concurrent claimers), record, requeue and the list."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator, Sequence
from typing import Any

import msgspec
import pytest

from redline.notify.app import MIGRATIONS
from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import (
    AttemptResult,
    ClaimedDelivery,
    DeliveryFilter,
    NewDelivery,
)
from redline.pg import Pool, create_pool, migrate

URL = "https://receiver.example.com/hook"
OTHER_URL = "https://other.example.com/hook"
LEASE_S = 60.0


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[Pool]:
    pool = await create_pool(database_url, max_size=4)
    async with pool.acquire() as conn:
        await migrate(conn, "notify", MIGRATIONS)
    yield pool
    await pool.close()


def new(
    webhook_id: str,
    *,
    key: str = "org1/doc1",
    url: str = URL,
    workspace: str = "ws1",
    api_key: str = "key1",
    event_type: str = "comment.add",
    failed_error: str | None = None,
) -> NewDelivery:
    return NewDelivery(
        webhook_id=webhook_id,
        workspace_id=workspace,
        api_key=api_key,
        kind="basic",
        event_id="evt_" + webhook_id,
        event_type=event_type,
        target="raw",
        url=url,
        ordering_key=key,
        body=b'{"webhookId": "' + webhook_id.encode() + b'"}',
        failed_error=failed_error,
    )


async def enqueue(pool: Pool, deliveries: Sequence[NewDelivery]) -> int:
    async with pool.acquire() as conn:
        return await storage.enqueue(conn, deliveries)


async def claim(
    pool: Pool, limit: int = 100, per_url_limit: int = 100, lease_s: float = LEASE_S
) -> list[ClaimedDelivery]:
    async with pool.acquire() as conn:
        return await storage.claim(conn, limit, per_url_limit, lease_s)


def ids(claimed: Sequence[ClaimedDelivery]) -> list[str]:
    return sorted(d.webhook_id for d in claimed)


def result(
    delivery: ClaimedDelivery,
    state: str,
    *,
    status: int | None = 200,
    error: str | None = None,
    retry_in_s: float = 0.0,
    claim_token: str | None = None,
) -> AttemptResult:
    now = dt.datetime.now(dt.UTC)
    return AttemptResult(
        delivery_id=delivery.id,
        claim_token=delivery.claim_token if claim_token is None else claim_token,
        attempt=delivery.attempts + 1,
        started_at=now,
        status=status,
        latency_ms=12.5,
        error=error,
        state=state,
        round_failures=delivery.round_failures + (state != "succeeded"),
        next_attempt_at=now + dt.timedelta(seconds=retry_in_s),
    )


async def record(pool: Pool, *results: AttemptResult) -> None:
    async with pool.acquire() as conn:
        await storage.record(conn, results)


async def row(pool: Pool, webhook_id: str) -> Any:
    return await pool.fetchrow("SELECT * FROM notify.delivery WHERE webhook_id = $1", webhook_id)


async def test_enqueue_is_idempotent_by_webhook_id(pool: Pool) -> None:
    assert await enqueue(pool, [new("a"), new("b"), new("c")]) == 3
    assert await enqueue(pool, [new("b"), new("d"), new("a")]) == 1
    assert await enqueue(pool, [new("d")]) == 0
    assert await enqueue(pool, []) == 0

    rows = await pool.fetch("SELECT webhook_id, state FROM notify.delivery ORDER BY id")
    assert [(r["webhook_id"], r["state"]) for r in rows] == [
        ("a", "pending"),
        ("b", "pending"),
        ("c", "pending"),
        ("d", "pending"),
    ]


async def test_a_webhook_id_twice_in_one_batch_is_stored_once(pool: Pool) -> None:
    first = new("a", key="first")
    again = NewDelivery(**{**msgspec.structs.asdict(first), "ordering_key": "again", "body": b"2"})

    assert await enqueue(pool, [first, new("b"), again]) == 2

    [claimed, _] = await claim(pool)
    assert claimed.webhook_id == "a"
    assert claimed.body == first.body
    assert (await row(pool, "a"))["ordering_key"] == "first"


async def test_enqueue_keeps_the_given_order(pool: Pool) -> None:
    names = [f"w{(i * 37) % 101:03d}" for i in range(101)]  # not in sorted order

    await enqueue(pool, [new(name) for name in names])

    rows = await pool.fetch("SELECT webhook_id FROM notify.delivery ORDER BY id")
    assert [r["webhook_id"] for r in rows] == names


async def test_enqueue_wakes_listeners(pool: Pool) -> None:
    woken = asyncio.Event()

    def notified(*_: object) -> None:
        woken.set()

    async with pool.acquire() as listener:
        await listener.add_listener(storage.NOTIFY_CHANNEL, notified)
        try:
            await enqueue(pool, [new("a")])
            async with asyncio.timeout(5):
                await woken.wait()
        finally:
            await listener.remove_listener(storage.NOTIFY_CHANNEL, notified)


async def test_a_delivery_without_a_usable_body_is_stored_failed(pool: Pool) -> None:
    await enqueue(pool, [new("a", failed_error="not sent: no publicKey")])

    stored = await row(pool, "a")
    assert stored["state"] == "failed"
    assert stored["last_error"] == "not sent: no publicKey"
    assert stored["finished_at"] is not None
    assert stored["attempts"] == 0
    assert await claim(pool) == []


async def test_claim_takes_only_the_head_of_each_url_and_key(pool: Pool) -> None:
    await enqueue(
        pool,
        [
            new("a1", key="k1"),
            new("b1", key="k2"),
            new("a2", key="k1"),
            new("c1", key="k1", url=OTHER_URL),
            new("b2", key="k2"),
            new("a3", key="k1"),
        ],
    )

    first = await claim(pool)
    assert ids(first) == ["a1", "b1", "c1"]
    assert all(d.claim_token and d.attempts == 0 for d in first)
    # Nothing else while the heads are in flight.
    assert await claim(pool) == []

    by_id = {d.webhook_id: d for d in first}
    await record(pool, result(by_id["a1"], "succeeded"))
    assert ids(await claim(pool)) == ["a2"]
    await record(pool, result(by_id["b1"], "succeeded"), result(by_id["c1"], "succeeded"))
    assert ids(await claim(pool)) == ["b2"]
    assert await claim(pool) == []


async def test_a_delivery_never_tried_holds_back_its_key(pool: Pool) -> None:
    await enqueue(pool, [new("a1", key="k1"), new("a2", key="k1"), new("b1", key="k2")])
    [a1, b1] = sorted(await claim(pool), key=lambda d: d.webhook_id)
    async with pool.acquire() as conn:
        # Given back unsent, due later: still first of its key.
        await storage.release(conn, [(a1.id, a1.claim_token)], 60.0)
    await record(pool, result(b1, "succeeded"))

    assert await claim(pool) == []
    released = await row(pool, "a1")
    assert (released["state"], released["claim_token"], released["attempts"]) == (
        "pending",
        None,
        0,
    )


async def test_a_delivery_waiting_for_its_retry_does_not_hold_back_its_key(pool: Pool) -> None:
    await enqueue(pool, [new("a1"), new("a2"), new("a3")])
    [a1] = await claim(pool)

    await record(pool, result(a1, "pending", status=503, error="HTTP 503", retry_in_s=3600))

    [a2] = await claim(pool)
    assert a2.webhook_id == "a2"
    waiting = await row(pool, "a1")
    assert waiting["state"] == "pending"
    assert waiting["attempts"] == 1
    assert waiting["round_failures"] == 1
    assert waiting["last_status"] == 503
    assert waiting["last_error"] == "HTTP 503"
    assert waiting["claim_token"] is None
    assert waiting["finished_at"] is None


async def test_a_delivery_that_failed_for_good_does_not_hold_back_its_key(pool: Pool) -> None:
    await enqueue(pool, [new("a1"), new("a2")])
    [a1] = await claim(pool)

    await record(pool, result(a1, "failed", status=None, error="blocked: nope"))

    assert ids(await claim(pool)) == ["a2"]
    failed = await row(pool, "a1")
    assert failed["state"] == "failed"
    assert failed["finished_at"] is not None


async def test_a_due_retry_is_claimed_beside_the_next_of_its_key(pool: Pool) -> None:
    await enqueue(pool, [new("a1"), new("a2")])
    [a1] = await claim(pool)
    await record(pool, result(a1, "pending", status=500, error="HTTP 500", retry_in_s=0))

    claimed = await claim(pool)

    assert ids(claimed) == ["a1", "a2"]
    retry = next(d for d in claimed if d.webhook_id == "a1")
    assert (retry.attempts, retry.round_failures) == (1, 1)


async def test_a_retry_is_not_claimed_before_it_is_due(pool: Pool) -> None:
    await enqueue(pool, [new("a1")])
    [a1] = await claim(pool)
    await record(pool, result(a1, "pending", status=500, retry_in_s=3600))

    assert await claim(pool) == []
    async with pool.acquire() as conn:
        due = await storage.next_due(conn)
    assert due is not None
    assert due > dt.datetime.now(dt.UTC) + dt.timedelta(seconds=3000)


async def test_next_due_looks_at_retries_only(pool: Pool) -> None:
    await enqueue(pool, [new("a1", key="k1"), new("b1", key="k2")])
    async with pool.acquire() as conn:
        # New deliveries announce themselves; a due one that is not claimable (it waits for its
        # turn) must not make an idle worker look again at once.
        assert await storage.next_due(conn) is None
        claimed = await storage.claim(conn, 10, 10, LEASE_S)
        soon, later = dt.timedelta(seconds=60), dt.timedelta(seconds=600)
        await storage.record(
            conn,
            [
                result(claimed[0], "pending", status=500, retry_in_s=later.total_seconds()),
                result(claimed[1], "pending", status=500, retry_in_s=soon.total_seconds()),
            ],
        )
        due = await storage.next_due(conn)
    assert due is not None
    now = dt.datetime.now(dt.UTC)
    assert now + soon - dt.timedelta(seconds=5) < due < now + soon


async def test_the_per_url_limit_holds_across_claims(pool: Pool) -> None:
    await enqueue(pool, [new(f"u{i}", key=f"k{i}") for i in range(10)])
    await enqueue(pool, [new(f"o{i}", key=f"k{i}", url=OTHER_URL) for i in range(3)])

    first = await claim(pool, limit=3, per_url_limit=5)
    assert ids(first) == ["u0", "u1", "u2"]
    second = await claim(pool, limit=10, per_url_limit=5)
    # Two more for the busy URL; the other URL has its own limit.
    assert ids(second) == ["o0", "o1", "o2", "u3", "u4"]
    assert await claim(pool, limit=10, per_url_limit=5) == []
    in_flight = await pool.fetchval(
        "SELECT count(*) FROM notify.delivery WHERE state = 'sending' AND url = $1", URL
    )
    assert in_flight == 5

    await record(pool, result(first[0], "succeeded"), result(first[1], "succeeded"))
    assert ids(await claim(pool, limit=10, per_url_limit=5)) == ["u5", "u6"]


async def test_claim_takes_no_more_than_its_limit(pool: Pool) -> None:
    await enqueue(pool, [new(f"d{i}", key=f"k{i}") for i in range(10)])

    assert ids(await claim(pool, limit=4)) == ["d0", "d1", "d2", "d3"]
    assert ids(await claim(pool, limit=4)) == ["d4", "d5", "d6", "d7"]
    assert ids(await claim(pool, limit=4)) == ["d8", "d9"]


async def test_extending_a_lease_keeps_the_claim(pool: Pool) -> None:
    await enqueue(pool, [new("a1", key="k1"), new("b1", key="k2")])
    a1, b1 = await claim(pool, lease_s=1)

    async with pool.acquire() as conn:
        await storage.extend_leases(conn, [(a1.id, a1.claim_token), (b1.id, "not-the-token")], 600)

    assert (await row(pool, "a1"))["lease_until"] > dt.datetime.now(dt.UTC) + dt.timedelta(
        seconds=500
    )
    assert (await row(pool, "b1"))["lease_until"] < dt.datetime.now(dt.UTC) + dt.timedelta(
        seconds=2
    )


async def test_an_expired_lease_is_claimed_again(pool: Pool) -> None:
    await enqueue(pool, [new("a1"), new("a2")])
    [first] = await claim(pool)
    # Within its lease, nobody else gets it (nor the next of its key).
    assert await claim(pool) == []

    await pool.execute(
        "UPDATE notify.delivery SET lease_until = now() - interval '1 second'"
        " WHERE webhook_id = 'a1'"
    )
    [again] = await claim(pool)

    assert again.id == first.id
    assert again.claim_token != first.claim_token
    assert again.attempts == 0


async def test_the_lease_is_as_long_as_asked(pool: Pool) -> None:
    await enqueue(pool, [new("a1")])
    before = dt.datetime.now(dt.UTC)

    await claim(pool, lease_s=90)

    lease_until = (await row(pool, "a1"))["lease_until"]
    assert before + dt.timedelta(seconds=85) < lease_until
    assert lease_until < dt.datetime.now(dt.UTC) + dt.timedelta(seconds=95)


async def test_concurrent_claimers_never_share_a_delivery(database_url: str, pool: Pool) -> None:
    await enqueue(pool, [new(f"d{i:03d}", key=f"k{i % 40}") for i in range(400)])
    others = await create_pool(database_url, max_size=2)
    try:
        seen: list[str] = []
        while True:
            batches = await asyncio.gather(
                claim(pool, limit=7, per_url_limit=30), claim(others, limit=7, per_url_limit=30)
            )
            claimed = [d for batch in batches for d in batch]
            if not claimed:
                in_flight = await pool.fetchval(
                    "SELECT count(*) FROM notify.delivery WHERE state = 'sending'"
                )
                if in_flight == 0:
                    break
            seen += [d.webhook_id for d in claimed]
            # Both claimers together stay within the URL's limit.
            assert len(claimed) <= 30
            # Finish what was claimed so that the next of each key becomes claimable.
            await record(pool, *(result(d, "succeeded") for d in claimed))
    finally:
        await others.close()

    assert len(seen) == len(set(seen)) == 400


async def test_concurrent_claimers_keep_the_per_url_limit(database_url: str, pool: Pool) -> None:
    await enqueue(pool, [new(f"d{i:03d}", key=f"k{i}") for i in range(100)])
    others = await create_pool(database_url, max_size=2)
    try:
        batches = await asyncio.gather(
            *(claim(p, limit=10, per_url_limit=12) for p in (pool, others, pool, others))
        )
    finally:
        await others.close()

    claimed = [d.webhook_id for batch in batches for d in batch]
    assert len(claimed) == len(set(claimed)) == 12


async def test_a_stale_claim_records_its_attempt_but_leaves_the_delivery(pool: Pool) -> None:
    await enqueue(pool, [new("a1")])
    [first] = await claim(pool)
    await pool.execute("UPDATE notify.delivery SET lease_until = now() - interval '1 second'")
    [current] = await claim(pool)

    await record(pool, result(first, "succeeded"))

    stored = await row(pool, "a1")
    assert stored["state"] == "sending"
    assert stored["claim_token"] == current.claim_token
    assert stored["attempts"] == 0
    async with pool.acquire() as conn:
        [attempt] = await storage.attempts_of(conn, [first.id])
    assert (attempt.attempt, attempt.status, attempt.error) == (1, 200, None)

    # A made-up token changes nothing either.
    await record(pool, result(current, "failed", status=500, claim_token="not-the-token"))
    assert (await row(pool, "a1"))["state"] == "sending"

    await record(pool, result(current, "succeeded"))
    stored = await row(pool, "a1")
    assert (stored["state"], stored["attempts"], stored["claim_token"]) == ("succeeded", 1, None)


async def test_record_stores_every_attempt(pool: Pool) -> None:
    await enqueue(pool, [new("a1")])
    [a1] = await claim(pool)
    await record(pool, result(a1, "pending", status=500, error="HTTP 500"))
    [a1] = await claim(pool)
    await record(pool, result(a1, "pending", status=None, error="timeout after 10 s"))
    [a1] = await claim(pool)
    await record(pool, result(a1, "succeeded", status=204))

    async with pool.acquire() as conn:
        attempts = await storage.attempts_of(conn, [a1.id])
    assert [(a.attempt, a.status, a.error) for a in attempts] == [
        (1, 500, "HTTP 500"),
        (2, None, "timeout after 10 s"),
        (3, 204, None),
    ]
    stored = await row(pool, "a1")
    assert stored["state"] == "succeeded"
    assert stored["attempts"] == 3
    assert stored["last_status"] == 204
    assert stored["last_error"] is None
    assert stored["finished_at"] is not None
    assert stored["lease_until"] is None


async def test_requeue_touches_only_waiting_and_failed_deliveries_of_the_key(
    pool: Pool,
) -> None:
    await enqueue(
        pool,
        [
            new("failed", key="k1"),
            new("waiting", key="k2"),
            new("done", key="k3"),
            new("sending", key="k4"),
            new("other-key", key="k5", api_key="key2"),
            new("other-ws", key="k6", workspace="ws2"),
        ],
    )
    claimed = {d.webhook_id: d for d in await claim(pool)}
    await record(
        pool,
        result(claimed["failed"], "failed", status=500),
        result(claimed["waiting"], "pending", status=500, retry_in_s=3600),
        result(claimed["done"], "succeeded"),
        result(claimed["other-key"], "failed", status=500),
        result(claimed["other-ws"], "failed", status=500),
    )
    before = {r["webhook_id"]: r for r in await pool.fetch("SELECT * FROM notify.delivery")}
    names = list(before)

    async with pool.acquire() as conn:
        await storage.requeue(conn, "ws1", "key1", [*names, "unknown"])

    after = {r["webhook_id"]: r for r in await pool.fetch("SELECT * FROM notify.delivery")}
    now = await pool.fetchval("SELECT now()")
    for name in ("failed", "waiting"):
        assert after[name]["state"] == "pending"
        assert after[name]["round_failures"] == 0
        assert after[name]["next_attempt_at"] <= now
        assert after[name]["finished_at"] is None
        assert after[name]["attempts"] == 1  # the attempts made stay counted
    for name in ("done", "sending", "other-key", "other-ws"):
        assert dict(after[name]) == dict(before[name])
    assert ids(await claim(pool)) == ["failed", "waiting"]


async def test_requeue_of_nothing_does_nothing(pool: Pool) -> None:
    async with pool.acquire() as conn:
        await storage.requeue(conn, "ws1", "key1", [])


async def test_states_of_sees_only_the_keys_deliveries(pool: Pool) -> None:
    await enqueue(pool, [new("a"), new("b", api_key="key2"), new("c", failed_error="no key")])

    async with pool.acquire() as conn, conn.transaction():
        states = await storage.states_of(conn, "ws1", "key1", ["a", "b", "c", "x"])

    assert states == {"a": ("pending", 0), "c": ("failed", 0)}


async def created_at(pool: Pool, at: dict[str, dt.datetime]) -> None:
    await pool.executemany(
        "UPDATE notify.delivery SET created_at = $2 WHERE webhook_id = $1", list(at.items())
    )


T0 = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def minutes(n: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=n)


async def listed(pool: Pool, limit: int = 100, **where: Any) -> list[str]:
    fields: dict[str, Any] = {"workspace_id": "ws1", "api_key": "key1"}
    async with pool.acquire() as conn:
        rows = await storage.list_deliveries(conn, DeliveryFilter(**(fields | where)), limit)
    return [r.webhook_id for r in rows]


async def test_list_filters_by_state_event_type_and_creation(pool: Pool) -> None:
    await enqueue(
        pool,
        [
            new("add1", event_type="comment.add"),
            new("upd1", event_type="comment.update", key="k2"),
            new("add2", event_type="comment.add", key="k3"),
            new("st1", event_type="comment_annotation.status_change", failed_error="no key"),
            new("mine-not", api_key="key2"),
            new("ws-not", workspace="ws2"),
        ],
    )
    await created_at(
        pool,
        {
            "add1": minutes(1),
            "upd1": minutes(2),
            "add2": minutes(3),
            "st1": minutes(4),
            "mine-not": minutes(2),
            "ws-not": minutes(2),
        },
    )
    [add1, *_] = sorted(await claim(pool), key=lambda d: d.webhook_id)
    await record(pool, result(add1, "succeeded"))

    assert await listed(pool) == ["st1", "add2", "upd1", "add1"]
    assert await listed(pool, state="failed") == ["st1"]
    assert await listed(pool, state="succeeded") == ["add1"]
    assert await listed(pool, state="sending") == ["add2", "upd1"]
    assert await listed(pool, state="pending") == []
    assert await listed(pool, event_types=["comment.add"]) == ["add2", "add1"]
    assert await listed(
        pool, event_types=["comment.update", "comment_annotation.status_change"]
    ) == ["st1", "upd1"]
    assert await listed(pool, event_types=[]) == []
    # Both ends are inclusive.
    assert await listed(pool, created_after=minutes(2)) == ["st1", "add2", "upd1"]
    assert await listed(pool, created_before=minutes(2)) == ["upd1", "add1"]
    assert await listed(pool, created_after=minutes(2), created_before=minutes(3)) == [
        "add2",
        "upd1",
    ]
    assert await listed(pool, state="sending", event_types=["comment.add"]) == ["add2"]
    assert await listed(pool, workspace_id="ws2") == ["ws-not"]
    assert await listed(pool, workspace_id="ws3") == []
    assert await listed(pool, api_key="key2") == ["mine-not"]


async def test_list_pages_newest_first_through_equal_times(pool: Pool) -> None:
    names = [f"d{i:02d}" for i in range(12)]
    await enqueue(pool, [new(name, key=name) for name in names])
    # Three share one time: the id decides among them.
    times = [1, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9, 10]
    await created_at(pool, {name: minutes(t) for name, t in zip(names, times, strict=True)})

    pages: list[list[str]] = []
    before: tuple[dt.datetime, int] | None = None
    while True:
        async with pool.acquire() as conn:
            rows = await storage.list_deliveries(
                conn, DeliveryFilter(workspace_id="ws1", api_key="key1", before=before), 4
            )
        if not rows:
            break
        pages.append([r.webhook_id for r in rows])
        before = (rows[-1].created_at, rows[-1].id)

    assert pages == [
        ["d11", "d10", "d09", "d08"],
        ["d07", "d06", "d05", "d04"],
        ["d03", "d02", "d01", "d00"],
    ]


async def test_purge_deletes_only_finished_deliveries_past_retention(pool: Pool) -> None:
    await enqueue(
        pool, [new("old-ok", key="k1"), new("old-failed", key="k2"), new("new", key="k3")]
    )
    await enqueue(pool, [new("waiting", key="k4"), new("never", failed_error="not sent: no key")])
    claimed = {d.webhook_id: d for d in await claim(pool)}
    await record(
        pool,
        result(claimed["old-ok"], "succeeded"),
        result(claimed["old-failed"], "failed", status=500, error="HTTP 500"),
        result(claimed["new"], "succeeded"),
        result(claimed["waiting"], "pending", status=500, error="HTTP 500", retry_in_s=3600),
    )
    await pool.execute(
        "UPDATE notify.delivery SET finished_at = now() - interval '2 days'"
        " WHERE webhook_id IN ('old-ok', 'old-failed', 'never')"
    )
    await pool.execute(
        "UPDATE notify.delivery SET created_at = now() - interval '2 days'"
        " WHERE webhook_id = 'waiting'"
    )

    async with pool.acquire() as conn:
        purged = await storage.purge_finished(conn, older_than_s=86400)

    assert purged == 3
    left = await pool.fetch("SELECT webhook_id FROM notify.delivery ORDER BY webhook_id")
    assert [r["webhook_id"] for r in left] == ["new", "waiting"]
    assert await pool.fetchval("SELECT count(*) FROM notify.delivery_body") == 2
    assert await pool.fetchval("SELECT count(*) FROM notify.delivery_attempt") == 2
