"""The identity service as a plugin of the shared runtime, and as an app of its own."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from aiohttp import web

from redline.envelope import PAGE_TOKENS, Endpoint, add_endpoints
from redline.identity.advanced_webhooks import routes as advanced_webhook_routes
from redline.identity.advanced_webhooks.service import AdvancedWebhookService
from redline.identity.app_keys import (
    ACCESS,
    ADVANCED_WEBHOOKS,
    CONFIG,
    DOCUMENTS,
    FOLDERS,
    MIGRATION,
    ORGANIZATIONS,
    PERMISSIONS,
    USERS,
    WORKSPACE,
)
from redline.identity.auth import LocalAuthBackend
from redline.identity.config import routes as config_routes
from redline.identity.config.service import ConfigService
from redline.identity.directory.documents import routes as document_routes
from redline.identity.directory.documents.service import DocumentService
from redline.identity.directory.folders import routes as folder_routes
from redline.identity.directory.folders.service import FolderService
from redline.identity.directory.organizations import routes as organization_routes
from redline.identity.directory.organizations.service import OrganizationService
from redline.identity.migration import routes as migration_routes
from redline.identity.migration.service import MigrationService
from redline.identity.migration.storage import IdentityDocuments
from redline.identity.permissions import routes as permission_routes
from redline.identity.permissions.access import AccessService
from redline.identity.permissions.service import PermissionsService
from redline.identity.permissions.user_tokens import UserTokens
from redline.identity.schema import SCHEMA
from redline.identity.settings import IdentitySettings
from redline.identity.subscribers import (
    run_migration_reports,
    serve_access_check,
    serve_advanced_webhooks_get,
    serve_auth_verify,
    serve_config_get,
    serve_documents_ensure,
    serve_documents_in_folder,
    watch_identity_changes,
)
from redline.identity.tokens import Sealer
from redline.identity.users import routes as user_routes
from redline.identity.users.service import UsersService
from redline.identity.workspace import routes as workspace_routes
from redline.identity.workspace.service import WorkspaceService
from redline.pg import Pool
from redline.runtime.access import ACCESS_CLIENT
from redline.runtime.app import ServicePlugin, background, build_app
from redline.runtime.document_migration import take_part_in_document_migration
from redline.runtime.keys import derive_key, page_tokens_for
from redline.runtime.resources import BUS, POOL, SECRET_KEY, VERIFIER
from redline.webhooks import AddressGuard

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"

# The whole URL map, feature by feature (the OpenAPI document lists them in this order).
ENDPOINTS: list[Endpoint] = [
    *workspace_routes.ENDPOINTS,
    *config_routes.ENDPOINTS,
    *advanced_webhook_routes.ENDPOINTS,
    *organization_routes.ENDPOINTS,
    *folder_routes.ENDPOINTS,
    *document_routes.ENDPOINTS,
    *user_routes.ENDPOINTS,
    *permission_routes.ENDPOINTS,
    *migration_routes.ENDPOINTS,
]


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
        webhook_guard=AddressGuard(settings.webhook_allow),
        workspace_cache_ttl_s=settings.workspace_cache_ttl_s,
    )


def _service(
    settings: IdentitySettings,
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    @contextlib.asynccontextmanager
    async def context(app: web.Application) -> AsyncIterator[None]:
        service = make_service(app[POOL], app[SECRET_KEY], app[VERIFIER].forget_api_key, settings)
        app[WORKSPACE] = service
        app[ACCESS] = AccessService(app[POOL], settings.default_access_type)
        app[MIGRATION] = MigrationService(app[POOL], settings.migration_participants)
        app[CONFIG] = ConfigService(app[POOL], AddressGuard(settings.webhook_allow))
        app[ADVANCED_WEBHOOKS] = AdvancedWebhookService(
            app[POOL],
            Sealer(derive_key(app[SECRET_KEY], "identity.advanced-webhook-secret")),
            AddressGuard(settings.webhook_allow),
            page_tokens_for(app[SECRET_KEY]),
        )
        # Grant changes drop this process's cached access decisions before they return.
        forget_access = app[ACCESS_CLIENT].forget_api_key
        app[USERS] = UsersService(
            app[POOL],
            page_tokens_for(app[SECRET_KEY]),
            settings.default_access_type,
            forget_access,
        )
        app[PERMISSIONS] = PermissionsService(
            app[POOL],
            settings.default_access_type,
            UserTokens(app[SECRET_KEY], settings.user_token_ttl_s),
            forget_access,
        )
        app[ORGANIZATIONS] = OrganizationService(app[POOL], app[PAGE_TOKENS], forget_access)
        app[FOLDERS] = FolderService(app[POOL], settings.default_access_type, forget_access)
        app[DOCUMENTS] = DocumentService(
            app[POOL], app[PAGE_TOKENS], settings.default_access_type, forget_access
        )
        # Folders that take the default access type follow a change of the setting.
        await app[FOLDERS].apply_default_access()
        subscriptions = [
            await serve_auth_verify(app[BUS], app[VERIFIER]),
            await serve_config_get(app[BUS], app[CONFIG]),
            await serve_advanced_webhooks_get(app[BUS], app[ADVANCED_WEBHOOKS]),
            await serve_documents_ensure(app[BUS], app[DOCUMENTS]),
            await serve_access_check(app[BUS], app[ACCESS]),
            await serve_documents_in_folder(app[BUS], app[POOL]),
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
        add_endpoints(app, ENDPOINTS)
        app.cleanup_ctx.append(_service(settings))
        app.cleanup_ctx.append(
            take_part_in_document_migration(SCHEMA, lambda app: IdentityDocuments())
        )
        app.cleanup_ctx.append(background("identity-migration-reports", run_migration_reports))

    return ServicePlugin(
        name=SCHEMA,
        setup=setup,
        migrations=MIGRATIONS,
        auth_backend=lambda app: LocalAuthBackend(
            app[POOL], UserTokens(app[SECRET_KEY], settings.user_token_ttl_s)
        ),
    )


def create_app(settings: IdentitySettings) -> web.Application:
    return build_app(settings, [plugin(settings)])
