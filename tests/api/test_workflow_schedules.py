"""Schedule triggers across replicas: two whole systems on one database, each with its own
schedule loop, start one run per slot between them (in-process target only: the test drives
the replicas' loops)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest
from aiohttp import web
from pytest_aiohttp import AiohttpClient

from redline.cli.system import create_system_app
from redline.testing.api import ApiClient
from redline.workflow.app_keys import SCHEDULES
from tests.api.workflow_support import Json, Workflow, definition, mock_agent

Replicas = Callable[..., Awaitable[tuple[list[web.Application], Workflow]]]


@pytest.fixture
def replicas(runtime_overrides: dict[str, Any], aiohttp_client: AiohttpClient) -> Replicas:
    """Start two systems on one database with some settings changed; a workspace on the first."""

    async def start(**changes: Any) -> tuple[list[web.Application], Workflow]:
        apps = [create_system_app({}, **{**runtime_overrides, **changes})[0] for _ in range(2)]
        clients = [await aiohttp_client(app) for app in apps]
        api = ApiClient(clients[0].session, str(clients[0].make_url("")))
        return apps, Workflow(api, await api.create_workspace())

    return start


def scheduled(definition_id: str, trigger_id: str, cron: str, **schedule: Any) -> Json:
    trigger = {
        "triggerId": trigger_id,
        "schedule": {"cron": cron, "timezone": "UTC", "enabled": True, **schedule},
    }
    return definition(definition_id, [mock_agent("audit")], [], triggers=[trigger])


async def runs_of(db: asyncpg.Connection, definition_id: str) -> list[Json]:
    rows = await db.fetch(
        "SELECT execution_id, idempotency_key, trigger_context FROM workflow.execution"
        " WHERE definition_id = $1 ORDER BY started_at",
        definition_id,
    )
    return [{**dict(r), "trigger_context": json.loads(r["trigger_context"])} for r in rows]


async def test_two_replicas_racing_for_a_slot_start_one_run(
    replicas: Replicas, db: asyncpg.Connection
) -> None:
    # The loops stay idle after their first tick; the test ticks both replicas at one instant.
    apps, flow = await replicas(schedule_interval_s=3600)
    # 02:00 on a 29th of February: never due in real time while the test runs.
    await flow.create(
        scheduled("leap-audit", "leap", "0 2 29 2 *", payloadTemplate={"source": "leap"})
    )
    slot = int(datetime(2032, 2, 29, 2, 0, tzinfo=UTC).timestamp() * 1000)

    first = await asyncio.gather(*(app[SCHEDULES].tick(slot + 3_000) for app in apps))
    later = await asyncio.gather(*(app[SCHEDULES].tick(slot + 8_000) for app in apps))

    dispatched = [d for found in first for d in found]
    assert [d.deduplicated for d in dispatched].count(False) == 1
    assert len({d.executionId for d in dispatched}) == 1
    assert later == [[], []]
    [run] = await runs_of(db, "leap-audit")
    assert run["idempotency_key"] == f"trig:leap:leap-audit:{slot}"
    assert run["trigger_context"] == {
        "schedule": {"triggerId": "leap", "scheduledAt": slot, "payload": {"source": "leap"}}
    }
    assert (await flow.ended(run["execution_id"]))["status"] == "completed"
    # Past the window a slot is a missed run: a schedule that did not fire it never replays it.
    await flow.create(scheduled("leap-missed", "leap", "0 2 29 2 *"))
    assert await apps[1][SCHEDULES].tick(slot + 15_001) == []
    assert await runs_of(db, "leap-missed") == []


async def test_the_loops_fire_a_due_slot_by_themselves_once(
    replicas: Replicas, db: asyncpg.Connection
) -> None:
    # Once a year, with a window wider than a year: this year's slot is due as soon as the
    # definition exists, and no other slot comes due while the test runs.
    apps, flow = await replicas(schedule_interval_s=0.05, schedule_window_s=400 * 86_400)
    await flow.create(scheduled("yearly", "new-year", "0 0 1 1 *"))

    deadline = time.monotonic() + 10
    while not await runs_of(db, "yearly"):
        assert time.monotonic() < deadline, "no scheduled run started"
        await asyncio.sleep(0.05)
    # Whatever either loop does next for the slot: nothing.
    now = int(time.time() * 1000)
    assert [await app[SCHEDULES].tick(now) for app in apps] == [[], []]

    [run] = await runs_of(db, "yearly")
    slot = int(datetime(datetime.now(UTC).year, 1, 1, tzinfo=UTC).timestamp() * 1000)
    assert run["trigger_context"] == {
        "schedule": {"triggerId": "new-year", "scheduledAt": slot, "payload": {}}
    }
    assert run["idempotency_key"] == f"trig:new-year:yearly:{slot}"
