"""Background tasks: one that dies of an error while it should run is logged at once and named
by `/readyz`; one that ends on its own or is stopped with the app is not."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from aiohttp import web

from redline.runtime.health import add_health_routes
from redline.runtime.tasks import failed_background_tasks, running


async def fail_soon() -> None:
    await asyncio.sleep(0)
    raise RuntimeError("lost the connection for good")


async def finish_soon() -> None:
    await asyncio.sleep(0)


async def run_forever() -> None:
    await asyncio.Event().wait()


async def test_a_task_that_dies_is_logged_and_named_until_its_block_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="redline.runtime.tasks")
    async with running(fail_soon(), name="ingest-worker"), running(run_forever(), name="relay"):
        await asyncio.sleep(0.01)
        assert failed_background_tasks() == ["ingest-worker"]
        assert "background task ingest-worker failed" in caplog.text
        assert "lost the connection for good" in caplog.text
    assert failed_background_tasks() == []


async def test_a_task_that_ends_on_its_own_or_is_stopped_is_not_a_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running(finish_soon(), name="one-off"), running(run_forever(), name="relay"):
        await asyncio.sleep(0.01)
        assert failed_background_tasks() == []
    assert caplog.records == []


async def test_readyz_names_a_dead_task(aiohttp_client: Any) -> None:
    app = web.Application()
    add_health_routes(app)
    client = await aiohttp_client(app)
    async with running(fail_soon(), name="notify-webhooks"):
        await asyncio.sleep(0.01)
        answer = await client.get("/readyz")
        body = await answer.json()
    assert answer.status == 503
    assert body["checks"]["background"] is False
    assert body["failedTasks"] == ["notify-webhooks"]
