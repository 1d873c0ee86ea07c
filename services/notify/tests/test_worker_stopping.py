"""A delivery worker stopped at the worst moment: its claim committed in PostgreSQL, its answer
not yet back. The claimed deliveries go back to the queue at once, not after their lease."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import ClaimedDelivery
from redline.pg import Pool
from services.notify.tests.worker_support import Receiver, enqueue, new, worker


async def test_a_claim_whose_answer_never_came_is_given_back_when_the_worker_stops(
    pool: Pool, receivers: Callable[..., Awaitable[Receiver]], monkeypatch: pytest.MonkeyPatch
) -> None:
    receiver = await receivers()
    committed = asyncio.Event()
    claim = storage.claim

    async def claim_and_lose_the_answer(*args: Any, **kwargs: Any) -> list[ClaimedDelivery]:
        claimed = await claim(*args, **kwargs)
        if claimed:
            committed.set()
            await asyncio.Event().wait()  # the worker is stopped before the answer comes
        return claimed

    monkeypatch.setattr(storage, "claim", claim_and_lose_the_answer)
    await enqueue(pool, [new(f"d{i}", receiver.url, key=f"k{i}") for i in range(3)])

    async with worker(pool, lease_s=60):
        async with asyncio.timeout(10):
            await committed.wait()
        held = await pool.fetch("SELECT state FROM notify.delivery")
        assert {row["state"] for row in held} == {"sending"}

    rows = await pool.fetch("SELECT state, claim_token, attempts, lease_until FROM notify.delivery")
    assert len(rows) == 3
    assert {tuple(row) for row in rows} == {("pending", None, 0, None)}
    assert receiver.arrived == []
