"""Queueing deliveries against a real database: idempotent by webhook id, in the given order,
waking the workers; a delivery that cannot be sent is stored failed."""

from __future__ import annotations

import asyncio

import msgspec

from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import (
    NewDelivery,
)
from redline.pg import Pool
from services.notify.tests.delivery_rows import (
    URL,
    claim,
    enqueue,
    new,
    row,
)


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


def numbered(webhook_id: str, seq: int, *, key: str = "exec1", ends: bool = False) -> NewDelivery:
    return msgspec.structs.replace(
        new(webhook_id, key=key, held=True), line_seq=seq, line_ends=ends
    )


async def line_seqs(pool: Pool, *keys: str) -> dict[tuple[str, str], int]:
    async with pool.acquire() as conn:
        return await storage.line_seqs(conn, [(URL, key) for key in keys])


async def test_enqueue_records_how_far_numbered_lines_got(pool: Pool) -> None:
    assert await line_seqs(pool, "exec1") == {}

    await enqueue(pool, [numbered("e1", 1), numbered("x4", 4, key="exec2"), numbered("e3", 3)])
    # A redelivered event takes no line back.
    await enqueue(pool, [numbered("e1", 1), new("basic", key="exec1")])

    assert await line_seqs(pool, "exec1", "exec2", "exec3") == {
        (URL, "exec1"): 3,
        (URL, "exec2"): 4,
    }
    stored = await row(pool, "e3")
    assert (stored["kind"], stored["retry_holds_line"]) == ("workflow", True)
    assert (await row(pool, "basic"))["retry_holds_line"] is False


async def test_a_line_that_ended_is_forgotten_after_the_retention(pool: Pool) -> None:
    await enqueue(pool, [numbered("e1", 1), numbered("e2", 2, ends=True)])
    await enqueue(pool, [numbered("x1", 1, key="exec2")])
    ended_at = await pool.fetchval("SELECT ended_at FROM notify.delivery_line_seq WHERE seq = 2")
    # A later event of the ended line keeps the time it ended.
    await enqueue(pool, [numbered("e3", 3, ends=True)])
    assert (
        await pool.fetchval(
            "SELECT ended_at FROM notify.delivery_line_seq WHERE ordering_key = 'exec1'"
        )
        == ended_at
    )

    async with pool.acquire() as conn:
        assert await storage.forget_ended_lines(conn, older_than_s=3600) == 0
        await conn.execute(
            "UPDATE notify.delivery_line_seq SET ended_at = ended_at - interval '2 hours'"
        )
        assert await storage.forget_ended_lines(conn, older_than_s=3600) == 1

    # The line still under way is kept however old, for its next event to find.
    assert await line_seqs(pool, "exec1", "exec2") == {(URL, "exec2"): 1}
