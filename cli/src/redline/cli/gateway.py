"""A small API gateway for the split topology: one port in front of the services, routing by path
prefix as the Kubernetes Gateway does in production.

It forwards method, path, query, headers and body unchanged (adding `X-Forwarded-For`), and
streams answers back. It serves three paths itself: `/healthz`, `/readyz` (ready when every
service is), and `/openapi.json`, the services' documents merged into one; `/metrics` it does
not forward (each service serves it on its own port).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

import aiohttp
from aiohttp import web

from redline.envelope import codec, end_unread_body
from redline.runtime.routing import SERVICES, service_for

# Headers that describe one connection, not the message: never forwarded (RFC 9110 §7.6.1).
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
_CHUNK = 64 * 1024
_BUFFERED = 8 << 20
_SESSION = web.AppKey("gateway_session", aiohttp.ClientSession)
_UPSTREAMS = web.AppKey("gateway_upstreams", dict[str, str])
# How the gateway's own server must run: bodies pass through as sent, compressed or not (a
# service decodes them, and refuses what does not decode).
SERVER_OPTIONS: Final[dict[str, Any]] = {"auto_decompress": False}
# Paths no service prefix covers go to one service, so that they get its "no endpoint" answer.
_FALLBACK = "identity"


def _forwarded_headers(request: web.Request) -> list[tuple[str, str]]:
    headers = [
        (name, value)
        for name, value in request.headers.items()
        if name.lower() not in _HOP_BY_HOP and name.lower() != "x-forwarded-for"
    ]
    peer = request.remote or ""
    earlier = ", ".join(request.headers.getall("X-Forwarded-For", []))
    headers.append(("X-Forwarded-For", f"{earlier}, {peer}" if earlier else peer))
    return headers


async def forward(request: web.Request) -> web.StreamResponse:
    service = service_for(request.path) or _FALLBACK
    upstream = request.app[_UPSTREAMS][service]
    session = request.app[_SESSION]
    body: bytes | AsyncIterator[bytes] | None = None
    if request.body_exists:
        # Held whole when small, so a service that answers before reading all of it (a body
        # it refuses) is heard rather than cut off mid-send; large uploads stream through.
        small = request.content_length is not None and request.content_length <= _BUFFERED
        body = await request.read() if small else request.content.iter_chunked(_CHUNK)
    try:
        async with session.request(
            request.method,
            upstream + request.rel_url.raw_path_qs,
            headers=_forwarded_headers(request),
            data=body,
            allow_redirects=False,
            auto_decompress=False,
        ) as answer:
            response = web.StreamResponse(status=answer.status, reason=answer.reason)
            for name, value in answer.headers.items():
                if name.lower() not in _HOP_BY_HOP:
                    response.headers.add(name, value)
            if answer.content_length is not None:
                response.content_length = answer.content_length
            # The service answered before the body reached it whole (a refusal): the rest is
            # not read here either, as the service would not.
            end_unread_body(request, response)
            await response.prepare(request)
            async for chunk in answer.content.iter_chunked(_CHUNK):
                await response.write(chunk)
            await response.write_eof()
            return response
    except (TimeoutError, aiohttp.ClientConnectionError):
        return _unavailable(f"The {service} service is not reachable.")


def _unavailable(message: str) -> web.Response:
    body = {"error": {"status": "UNAVAILABLE", "message": message}}
    return web.Response(status=503, body=codec.encode(body), content_type="application/json")


async def not_public(request: web.Request) -> web.Response:
    """Paths a service answers on its own port only: the gateway is the public way in, and
    `/metrics` tells whoever reads it the traffic of every tenant. Prometheus scrapes each
    service's port directly, as it does in a cluster."""
    body = {"error": {"status": "NOT_FOUND", "message": "No endpoint at this path."}}
    return web.Response(status=404, body=codec.encode(body), content_type="application/json")


async def healthz(request: web.Request) -> web.Response:
    return web.Response(body=codec.encode({"status": "ok"}), content_type="application/json")


async def readyz(request: web.Request) -> web.Response:
    """Ready when every service is. `checks` holds each dependency the services report, true
    when it is so for all of them; `services` holds each service's own readiness."""
    session = request.app[_SESSION]

    async def readiness(upstream: str) -> tuple[bool, dict[str, bool]]:
        try:
            async with session.get(upstream + "/readyz", timeout=aiohttp.ClientTimeout(3)) as r:
                body = await r.json(content_type=None)
                return r.status == 200, dict(body.get("checks", {}))
        except (TimeoutError, aiohttp.ClientError, ValueError):
            return False, {}

    upstreams = request.app[_UPSTREAMS]
    results = await asyncio.gather(*(readiness(upstreams[s]) for s in SERVICES))
    services = {name: ready for name, (ready, _) in zip(SERVICES, results, strict=True)}
    checks: dict[str, bool] = {}
    for _, reported in results:
        for name, passed in reported.items():
            checks[name] = checks.get(name, True) and passed is True
    status = 200 if all(services.values()) else 503
    body = {
        "status": "ok" if status == 200 else "unavailable",
        "checks": checks,
        "services": services,
    }
    return web.Response(status=status, body=codec.encode(body), content_type="application/json")


_SCHEMA_REF = "#/components/schemas/"


def merge_documents(
    documents: list[dict[str, Any]], owners: list[str] | None = None
) -> dict[str, Any]:
    """One OpenAPI document of several services': their paths, and their components. Each
    service generates the shared ones (the error envelope, say) from the same types, so a
    component of one name and one schema is kept once; when two services give one name to
    different schemas, the later one's is renamed `<owner>.<name>` (its references with it), so
    that neither answer is described by the other's schema."""
    owners = owners or [str(n) for n in range(len(documents))]
    merged: dict[str, Any] = {**documents[0], "paths": {}, "components": {}}
    for owner, document in zip(owners, documents, strict=True):
        schemas = merged["components"].get("schemas", {})
        clashes = {
            name: f"{owner}.{name}"
            for name, schema in document.get("components", {}).get("schemas", {}).items()
            if name in schemas and schemas[name] != schema
        }
        if clashes:
            document = _renamed(document, clashes)
        merged["paths"].update(document.get("paths", {}))
        for kind, entries in document.get("components", {}).items():
            merged["components"].setdefault(kind, {}).update(entries)
    merged["paths"] = dict(sorted(merged["paths"].items()))
    return merged


def _renamed(document: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """`document` with the schema components `names` maps renamed, and every reference to them."""
    refs = {_SCHEMA_REF + old: _SCHEMA_REF + new for old, new in names.items()}

    def walk(node: Any) -> Any:
        # `$ref`s, and the references a discriminator's mapping holds, are whole strings.
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return refs.get(node, node) if isinstance(node, str) else node

    renamed: dict[str, Any] = walk(document)
    schemas = renamed.get("components", {}).get("schemas", {})
    renamed["components"]["schemas"] = {names.get(k, k): v for k, v in schemas.items()}
    return renamed


async def openapi_json(request: web.Request) -> web.Response:
    session = request.app[_SESSION]
    upstreams = request.app[_UPSTREAMS]
    documents: list[dict[str, Any]] = []
    try:
        for service in SERVICES:
            async with session.get(upstreams[service] + "/openapi.json") as answer:
                answer.raise_for_status()
                documents.append(await answer.json())
    except (TimeoutError, aiohttp.ClientError):
        return _unavailable("A service's API document is not reachable.")
    body = codec.encode(merge_documents(documents, list(SERVICES)))
    return web.Response(body=body, content_type="application/json")


def create_gateway(upstreams: Mapping[str, str]) -> web.Application:
    """The gateway in front of `upstreams`: service name → base URL (`http://host:port`)."""
    missing = sorted(set(SERVICES) - set(upstreams))
    if missing:
        raise ValueError(f"no upstream for {', '.join(missing)}")
    # Bodies stream through: the services enforce their own size limits.
    app = web.Application(client_max_size=0)
    app[_UPSTREAMS] = {name: url.rstrip("/") for name, url in upstreams.items()}

    async def session(app: web.Application) -> AsyncIterator[None]:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=5, sock_read=300)
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as client:
            app[_SESSION] = client
            yield

    app.cleanup_ctx.append(session)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/openapi.json", openapi_json)
    app.router.add_route("*", "/metrics", not_public)
    # Any path, a line break in it too (`.` stops at one): the services answer every path.
    app.router.add_route("*", r"/{tail:[\s\S]*}", forward)
    return app
