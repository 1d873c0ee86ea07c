"""Building a service's aiohttp app: shared infrastructure plus one or more service plugins.

A service's `create_app(settings)` is `build_app(settings, [its plugin])`; the all-in-one process
is the same call with every plugin, so both shapes run the very same code.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler
from nats.aio.msg import Msg

from redline.bus import Bus, DurableConsumer, OutboxRelay, ensure_events_stream, inbox_prefix
from redline.bus.failures import infrastructure_error
from redline.envelope import (
    GATE,
    PAGE_TOKENS,
    AdminPolicy,
    Gate,
    HeaderNames,
    RateLimiter,
    Tier,
    envelope_middleware,
)
from redline.envelope.client_address import parse_networks
from redline.envelope.errors import ApiError
from redline.envelope.openapi import add_openapi_routes
from redline.pg import (
    Pool,
    create_pool,
    holding,
    migrate,
)
from redline.proto.events import Event, KeyRevoked, decode_event
from redline.proto.subjects import KEY_REVOKED
from redline.runtime import rate_counts
from redline.runtime.access import ACCESS_CLIENT, AccessClient
from redline.runtime.auth import AuthBackend, CachedVerifier, RpcAuthBackend
from redline.runtime.health import add_health_routes
from redline.runtime.keys import page_tokens_for
from redline.runtime.known_documents import KNOWN_DOCUMENTS, KnownDocuments
from redline.runtime.metrics import add_metrics_route, measure
from redline.runtime.resources import BUS, HOLDER, POOL, RELAY, SECRET_KEY, SETTINGS, VERIFIER
from redline.runtime.settings import RuntimeSettings, SettingsError
from redline.runtime.tasks import running

log = logging.getLogger("redline.runtime")

# The largest body any endpoint takes (inline ingest); each endpoint enforces its own limit.
MAX_BODY = 8 << 20


@dataclass(frozen=True)
class ServicePlugin:
    """What a service contributes to an app."""

    name: str  # also its PostgreSQL schema
    setup: Callable[[web.Application], None]  # endpoints, subscribers, background tasks
    migrations: Path | None = None
    # Identity checks credentials itself; every other service asks identity over NATS.
    auth_backend: Callable[[web.Application], AuthBackend] | None = None


def build_app(settings: RuntimeSettings, plugins: Sequence[ServicePlugin]) -> web.Application:
    if not settings.database_url:
        raise SettingsError("REDLINE_DATABASE_URL is not set")
    if not settings.nats_url:
        raise SettingsError("REDLINE_NATS_URL is not set")
    app = web.Application(
        # Measured outermost, so the status counted is the one the client got.
        middlewares=[measure, envelope_middleware, _storage_errors],
        client_max_size=MAX_BODY,
    )
    app[SETTINGS] = settings
    app[SECRET_KEY] = settings.secret_key_bytes()
    app[PAGE_TOKENS] = page_tokens_for(app[SECRET_KEY])
    app.cleanup_ctx.append(_infrastructure(plugins))
    add_health_routes(app)
    add_metrics_route(app)
    for plugin in plugins:
        plugin.setup(app)
    add_openapi_routes(app)
    return app


@web.middleware
async def _storage_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Failures of the infrastructure under a request, answered as `infrastructure_error` says
    (the RPC replies say the same); others go on to the envelope's INTERNAL."""
    try:
        return await handler(request)
    except ApiError:
        raise
    except Exception as exc:
        answer = infrastructure_error(exc)
        if answer is None:
            raise
        log.warning("%s on %s: %s", answer.code, request.path, exc)
        raise answer from exc


def _limiter(settings: RuntimeSettings, pool: Pool) -> AbstractAsyncContextManager[RateLimiter]:
    """The process's rate limiter of the gate's tiers, shared by the replicas."""
    limits = {
        Tier.GENERAL: settings.rate_limit_general,
        Tier.SEARCH: settings.rate_limit_search,
        Tier.INGEST: settings.rate_limit_ingest,
        Tier.SIGNUP: settings.rate_limit_signup,
        Tier.AUTH_FAILURES: settings.rate_limit_auth_failures,
    }
    return rate_counts.shared_limiter(limits, pool, settings.rate_limit_sync_s)


def _gate(settings: RuntimeSettings, verifier: CachedVerifier, limiter: RateLimiter) -> Gate:
    """What every request passes first: credentials, the admin's, rate limits, proxies."""
    return Gate(
        verifier=verifier,
        headers=HeaderNames.for_brands(settings.header_brands),
        admin=AdminPolicy(settings.admin_token, settings.open_signup),
        limiter=limiter,
        trusted_proxies=parse_networks(settings.trusted_proxies),
        trusted_proxy_hops=settings.trusted_proxy_hops,
    )


def _infrastructure(
    plugins: Sequence[ServicePlugin],
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    @contextlib.asynccontextmanager
    async def context(app: web.Application) -> AsyncIterator[None]:
        settings = app[SETTINGS]
        assert settings.database_url
        assert settings.nats_url
        pool = await create_pool(settings.database_url, max_size=settings.db_pool_size)
        try:
            schemas = await _migrate(pool, plugins)
            bus = await Bus.connect(
                settings.nats_url, name="redline", inbox=inbox_prefix(_owner(plugins))
            )
            try:
                await ensure_events_stream(bus.js, settings.nats_stream_replicas)
                relay = OutboxRelay(pool, bus.js, schemas)
                async with (
                    running(relay.run(), name="outbox-relay"),
                    _limiter(settings, pool) as limiter,
                    holding(settings.database_url) as holder,
                ):
                    app[POOL], app[BUS], app[RELAY] = pool, bus, relay
                    app[HOLDER] = holder
                    backend = _auth_backend(app, plugins, bus)
                    verifier = CachedVerifier(backend, settings.auth_cache_ttl_s)
                    app[VERIFIER] = verifier
                    app[GATE] = _gate(settings, verifier, limiter)
                    revocations = await bus.nc.subscribe(KEY_REVOKED, cb=_forget_revoked(verifier))
                    # One access cache and one of known documents per process, shared by
                    # every service in it.
                    access = AccessClient(bus)
                    await access.start()
                    app[ACCESS_CLIENT] = access
                    documents = KnownDocuments(bus)
                    await documents.start()
                    app[KNOWN_DOCUMENTS] = documents
                    try:
                        yield
                    finally:
                        await documents.stop()
                        await access.stop()
                        await revocations.unsubscribe()
            finally:
                await bus.close()
        finally:
            await pool.close()

    return context


async def migrate_only(settings: RuntimeSettings, plugins: Sequence[ServicePlugin]) -> None:
    """Apply the plugins' migrations and return: what a deployment's init container runs once
    per rollout, so that replicas start on a schema that is already there."""
    if not settings.database_url:
        raise SettingsError("REDLINE_DATABASE_URL is not set")
    pool = await create_pool(settings.database_url, max_size=1)
    try:
        await _migrate(pool, plugins)
    finally:
        await pool.close()


async def _migrate(pool: Pool, plugins: Sequence[ServicePlugin]) -> list[str]:
    schemas: list[str] = []
    async with pool.acquire() as conn:
        await migrate(conn, rate_counts.SCHEMA, rate_counts.MIGRATIONS)
        for plugin in plugins:
            if plugin.migrations is not None:
                applied = await migrate(conn, plugin.name, plugin.migrations)
                if applied:
                    log.info("%s: applied migrations %s", plugin.name, applied)
                schemas.append(plugin.name)
    return schemas


def _owner(plugins: Sequence[ServicePlugin]) -> str:
    """Whose NATS inboxes the process's connection uses: its service's, when it runs one."""
    return plugins[0].name if len(plugins) == 1 else "redline"


def _auth_backend(app: web.Application, plugins: Sequence[ServicePlugin], bus: Bus) -> AuthBackend:
    for plugin in plugins:
        if plugin.auth_backend is not None:
            return plugin.auth_backend(app)
    return RpcAuthBackend(bus)


def _forget_revoked(verifier: CachedVerifier) -> Callable[[Msg], Awaitable[None]]:
    async def on_message(msg: Msg) -> None:
        try:
            event = decode_event(msg.data)
        except Exception:
            log.warning("undecodable revocation event ignored")
            return
        if isinstance(event, KeyRevoked):
            if event.apiKey is not None:
                verifier.forget_api_key(event.apiKey)
            else:
                verifier.forget_workspace(event.workspaceId)

    return on_message


def consuming(
    durable: str,
    subjects: list[str],
    handler_of: Callable[[web.Application], Callable[[Event], Awaitable[None]]],
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    """A cleanup context that runs the durable consumer `durable` of `subjects` while the app
    serves, handing each event to the handler `handler_of(app)` builds once the app is up."""

    @contextlib.asynccontextmanager
    async def context(app: web.Application) -> AsyncIterator[None]:
        consumer = DurableConsumer(app[BUS].js, durable, handler_of(app), filter_subjects=subjects)
        async with running(consumer.run(), name=durable):
            yield

    return context


def background(
    name: str, work: Callable[[web.Application], Coroutine[Any, Any, None]]
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    """A cleanup context that runs `work(app)` in the background while the app serves."""

    @contextlib.asynccontextmanager
    async def context(app: web.Application) -> AsyncIterator[None]:
        async with running(work(app), name=name):
            yield

    return context
