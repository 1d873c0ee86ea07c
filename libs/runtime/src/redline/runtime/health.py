"""`/healthz`: the process answers. `/readyz`: its database and NATS are reachable, and none of
its background tasks (consumers, workers) has died."""

from __future__ import annotations

import asyncio

from aiohttp import web

from redline.envelope import codec
from redline.runtime.resources import BUS, POOL
from redline.runtime.tasks import failed_background_tasks


async def healthz(request: web.Request) -> web.Response:
    return web.Response(body=codec.encode({"status": "ok"}), content_type="application/json")


async def readyz(request: web.Request) -> web.Response:
    checks = {"database": False, "nats": False, "background": False}
    pool = request.app.get(POOL)
    if pool is not None:
        try:
            async with asyncio.timeout(2):
                checks["database"] = await pool.fetchval("SELECT true") is True
        except Exception:  # noqa: S110 (an unreachable database is exactly what this reports)
            pass
    bus = request.app.get(BUS)
    checks["nats"] = bus is not None and bus.connected
    failed = failed_background_tasks()
    checks["background"] = not failed
    ready = all(checks.values())
    body: dict[str, object] = {"status": "ok" if ready else "unavailable", "checks": checks}
    if failed:
        body["failedTasks"] = failed
    return web.Response(
        status=200 if ready else 503, body=codec.encode(body), content_type="application/json"
    )


def add_health_routes(app: web.Application) -> None:
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
