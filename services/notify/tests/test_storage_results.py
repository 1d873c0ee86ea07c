"""After a claim, against a real database: recording attempts, requeueing, the delivery list and
the retention purge."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import DeliveryFilter
from redline.pg import Pool
from services.notify.tests.delivery_rows import (
    claim,
    enqueue,
    ids,
    new,
    record,
    result,
    row,
)


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
    await enqueue(pool, [new("failed", key="k1"), new("waiting", key="k2")])
    claimed = {d.webhook_id: d for d in await claim(pool)}
    await record(
        pool,
        result(claimed["failed"], "failed", status=500),
        result(claimed["waiting"], "pending", status=500, retry_in_s=3600),
    )
    before = await pool.fetch("SELECT * FROM notify.delivery ORDER BY id")
    heard: asyncio.Queue[str] = asyncio.Queue()

    def notified(*args: Any) -> None:
        heard.put_nowait(args[3])

    async with pool.acquire() as listener:
        await listener.add_listener(storage.NOTIFY_CHANNEL, notified)
        try:
            async with pool.acquire() as conn:
                await storage.requeue(conn, "ws1", "key1", [])
                # Notifications arrive in commit order: this one comes after any the requeue sent.
                await conn.execute("SELECT pg_notify($1, 'after')", storage.NOTIFY_CHANNEL)
            async with asyncio.timeout(5):
                assert await heard.get() == "after"
        finally:
            await listener.remove_listener(storage.NOTIFY_CHANNEL, notified)

    after = await pool.fetch("SELECT * FROM notify.delivery ORDER BY id")
    assert [dict(r) for r in after] == [dict(r) for r in before]


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
BUDGET = 4 * 1024 * 1024


def minutes(n: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=n)


async def listed(pool: Pool, limit: int = 100, **where: Any) -> list[str]:
    fields: dict[str, Any] = {"workspace_id": "ws1", "api_key": "key1"}
    async with pool.acquire() as conn:
        rows, _ = await storage.list_deliveries(
            conn, DeliveryFilter(**(fields | where)), limit, BUDGET
        )
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
            rows, _ = await storage.list_deliveries(
                conn, DeliveryFilter(workspace_id="ws1", api_key="key1", before=before), 4, BUDGET
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


async def test_the_queue_statements_are_planned_for_the_queue_as_it_is(pool: Pool) -> None:
    """A generic plan made while the queue was small would scan the whole table once it grew
    (see redline.pg.plans): claims and records are planned afresh each time."""
    async with pool.acquire() as conn:
        for n in range(8):
            await storage.enqueue(conn, [new(f"p{n}")])
            [claimed] = await storage.claim(conn, 10, 10, 60.0, 1)
            await storage.release(conn, [(claimed.id, claimed.claim_token)], 0.0)
            [claimed] = await storage.claim(conn, 10, 10, 60.0, 1)
            await storage.extend_leases(conn, [(claimed.id, claimed.claim_token)], 60.0)
            await storage.record(conn, [result(claimed, "succeeded")])
        plans = await conn.fetch(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE '%UPDATE notify.delivery%' AND statement NOT LIKE '%pg_prep%'"
        )

    assert len(plans) == 4  # claim, release, extend_leases, record
    assert all(p["generic_plans"] == 0 and p["custom_plans"] >= 8 for p in plans), plans
