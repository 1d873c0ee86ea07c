"""Prometheus metrics of a service process, served at `/metrics`.

HTTP requests are counted and timed here, by route template (never the raw path, so ids cannot
grow the label set) and status code. Consumers, deliveries, workflow steps and ingests define
their own metrics where they happen; every one lands in the process's default registry.
"""

from __future__ import annotations

import time
from typing import Final

from aiohttp import web
from aiohttp.typedefs import Handler
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest

HTTP_REQUESTS: Final = Counter(
    "redline_http_requests",
    "HTTP requests answered, by route template, method and status code.",
    ("route", "method", "status"),
)
HTTP_LATENCY: Final = Histogram(
    "redline_http_request_duration_seconds",
    "Time from a request's arrival to its answer, by route template and method.",
    ("route", "method"),
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
# Requests for paths no route matches share one label value.
UNMATCHED = "unmatched"


def route_of(request: web.Request) -> str:
    route = request.match_info.route
    resource = route.resource if route is not None else None
    return resource.canonical if resource is not None else UNMATCHED


@web.middleware
async def measure(request: web.Request, handler: Handler) -> web.StreamResponse:
    started = time.perf_counter()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as exc:
        status = exc.status
        raise
    finally:
        route = route_of(request)
        HTTP_REQUESTS.labels(route, request.method, str(status)).inc()
        HTTP_LATENCY.labels(route, request.method).observe(time.perf_counter() - started)


async def metrics(request: web.Request) -> web.Response:
    response = web.Response(body=generate_latest())
    response.content_type = CONTENT_TYPE_LATEST.split(";")[0]
    response.charset = "utf-8"
    return response


def add_metrics_route(app: web.Application) -> None:
    app.router.add_get("/metrics", metrics)
