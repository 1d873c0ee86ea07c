"""The delivery API's rules against a real database: what a list filters, and operators'
retries, several at once, beside the worker's claims."""

from __future__ import annotations

import asyncio
import random

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.pagination import PageTokens
from redline.notify.deliveries.models import ListDeliveries, RetryDeliveries
from redline.notify.deliveries.service import DeliveryService
from redline.pg import Pool, create_pool
from services.notify.tests.delivery_rows import claim, enqueue, new, record, result

KEY = ApiKeyPrincipal(workspace_id="ws1", api_key="key1")
BUDGET = 4 * 1024 * 1024


async def test_an_empty_list_of_event_types_filters_nothing(pool: Pool) -> None:
    await enqueue(
        pool, [new("add", event_type="comment.add"), new("edit", event_type="comment.update")]
    )
    service = DeliveryService(pool, PageTokens(b"k" * 32), 50, BUDGET)

    async def listed(event_types: list[str]) -> list[str]:
        found = (await service.list(KEY, ListDeliveries(eventTypes=event_types))).data
        return sorted(delivery.deliveryId for delivery in found)

    assert await listed([]) == ["add", "edit"]
    assert await listed(["comment.update"]) == ["edit"]


async def test_retries_of_the_same_deliveries_at_once_all_answer(
    pool: Pool, database_url: str
) -> None:
    names = [f"d{i}" for i in range(40)]
    await enqueue(pool, [new(name, key=f"org1/{name}") for name in names])
    await record(pool, *(result(d, "failed", status=500) for d in await claim(pool)))
    # Enough connections that every retry runs its transaction at the same time.
    wide = await create_pool(database_url, max_size=20)
    try:
        service = DeliveryService(wide, PageTokens(b"k" * 32), 50, BUDGET)
        shuffled = [random.sample(names, len(names)) for _ in range(20)]

        answers = await asyncio.gather(
            *(service.retry(KEY, RetryDeliveries(deliveryIds=ids)) for ids in shuffled),
            # The worker claims what the first retries made due meanwhile.
            claim(pool),
            claim(pool),
        )
    finally:
        await wide.close()

    for answer in answers[:20]:
        assert isinstance(answer, dict)
        assert set(answer) == set(names)
    states = await pool.fetch(
        "SELECT state, count(*) AS n FROM notify.delivery GROUP BY state ORDER BY state"
    )
    assert {row["state"] for row in states} <= {"pending", "sending"}
    assert sum(row["n"] for row in states) == len(names)


async def test_workflow_deliveries_are_listed_and_retried_like_the_others(pool: Pool) -> None:
    await enqueue(pool, [new("evt_1", key="exec_1", event_type="step.completed", held=True)])
    await enqueue(pool, [new("evt_2", key="exec_1", event_type="execution.completed", held=True)])
    [first] = await claim(pool)
    await record(pool, result(first, "failed", status=500, error="HTTP 500"))
    [second] = await claim(pool)
    await record(pool, result(second, "succeeded"))
    service = DeliveryService(pool, PageTokens(b"k" * 32), 50, BUDGET)

    found = (await service.list(KEY, ListDeliveries())).data
    assert [(d.deliveryId, d.target, d.eventType, d.status) for d in found] == [
        ("evt_2", "workflow", "execution.completed", "succeeded"),
        ("evt_1", "workflow", "step.completed", "failed"),
    ]

    answer = await service.retry(KEY, RetryDeliveries(deliveryIds=["evt_1", "evt_2"]))
    assert {name: result.success for name, result in answer.items()} == {
        "evt_1": True,
        "evt_2": False,
    }
    # Due again at once, first of its line.
    [again] = await claim(pool)
    assert (again.webhook_id, again.attempts, again.retry_holds_line) == ("evt_1", 1, True)


async def test_a_page_ends_at_the_byte_budget_and_the_next_goes_on_from_there(pool: Pool) -> None:
    names = [f"d{i}" for i in range(5)]
    # About 3 kB a delivery: a budget of 7 kB holds two of them.
    long_url = "https://receiver.example/" + "p" * 3000
    await enqueue(pool, [new(name, key=name, url=long_url) for name in names])
    service = DeliveryService(pool, PageTokens(b"k" * 32), 50, 7000)

    pages: list[list[str]] = []
    token: str | None = None
    for _ in names:
        reply = await service.list(KEY, ListDeliveries(pageToken=token))
        pages.append([d.deliveryId for d in reply.data])
        token = (reply.extra or {}).get("nextPageToken")
        if token is None:
            break

    assert [len(page) for page in pages] == [2, 2, 1]
    assert sorted(name for page in pages for name in page) == names
