"""The identity service as a plugin of the shared runtime, and as an app of its own."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from aiohttp import web

from redline.envelope import add_endpoints
from redline.identity import routes
from redline.identity.app_keys import ACCESS, MIGRATION, SERVICE
from redline.identity.auth import LocalAuthBackend
from redline.identity.service.access import AccessService
from redline.identity.service.migration import MigrationService
from redline.identity.service.workspace import WorkspaceService
from redline.identity.settings import IdentitySettings
from redline.identity.storage.migration import IdentityDocuments
from redline.identity.subscribers import (
    run_migration_reports,
    serve_auth_verify,
    watch_identity_changes,
)
from redline.identity.tokens import Sealer
from redline.pg import Pool
from redline.runtime.app import ServicePlugin, background, build_app
from redline.runtime.document_migration import take_part_in_document_migration
from redline.runtime.keys import derive_key, page_tokens_for
from redline.runtime.resources import BUS, POOL, SECRET_KEY, VERIFIER

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"


def make_service(
    pool: Pool,
    secret_key: bytes,
    on_revoked: Callable[[str], None],
    settings: IdentitySettings,
) -> WorkspaceService:
    return WorkspaceService(
        pool,
        Sealer(derive_key(secret_key, "identity.token-seal")),
        page_tokens_for(secret_key),
        on_revoked=on_revoked,
        workspace_cache_ttl_s=settings.workspace_cache_ttl_s,
    )


def _service(
    settings: IdentitySettings,
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    @contextlib.asynccontextmanager
    async def context(app: web.Application) -> AsyncIterator[None]:
        service = make_service(app[POOL], app[SECRET_KEY], app[VERIFIER].forget_api_key, settings)
        app[SERVICE] = service
        app[ACCESS] = AccessService(app[POOL], settings.default_access_type)
        app[MIGRATION] = MigrationService(app[POOL], settings.migration_participants)
        subscriptions = [
            await serve_auth_verify(app[BUS], app[VERIFIER]),
            await watch_identity_changes(app[BUS], service),
        ]
        try:
            yield
        finally:
            for subscription in subscriptions:
                await subscription.unsubscribe()

    return context


def plugin(settings: IdentitySettings) -> ServicePlugin:
    def setup(app: web.Application) -> None:
        add_endpoints(app, routes.ENDPOINTS)
        app.cleanup_ctx.append(_service(settings))
        app.cleanup_ctx.append(
            take_part_in_document_migration("identity", lambda app: IdentityDocuments())
        )
        app.cleanup_ctx.append(background("identity-migration-reports", run_migration_reports))

    return ServicePlugin(
        name="identity",
        setup=setup,
        migrations=MIGRATIONS,
        auth_backend=lambda app: LocalAuthBackend(app[POOL]),
    )


def create_app(settings: IdentitySettings) -> web.Application:
    return build_app(settings, [plugin(settings)])
