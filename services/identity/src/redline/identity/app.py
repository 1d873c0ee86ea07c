"""The identity service as a plugin of the shared runtime, and as an app of its own."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from aiohttp import web
from nats.aio.subscription import Subscription

from redline.envelope import PAGE_TOKENS, Endpoint, add_endpoints
from redline.identity.access_changes import FORGET_NOTHING
from redline.identity.advanced_webhooks import routes as advanced_webhook_routes
from redline.identity.advanced_webhooks.service import AdvancedWebhookService
from redline.identity.app_keys import (
    ACCESS,
    ADVANCED_WEBHOOKS,
    APP_SETTINGS,
    DISABLE_STATE,
    DOCUMENTS,
    DOMAIN_REQUESTS,
    ERASURE_JOBS,
    FOLDERS,
    INVITATIONS,
    KEY_SETTINGS,
    LOGIN,
    MIGRATION,
    ORGANIZATIONS,
    PERMISSION_SIGNER,
    PERMISSIONS,
    PROVIDER_CONFIG,
    USER_DATA_EXPORT,
    USER_GROUPS,
    USERS,
    WORKSPACE,
)
from redline.identity.app_settings import routes as app_config_routes
from redline.identity.app_settings.service import AppSettingsService
from redline.identity.auth import LocalAuthBackend
from redline.identity.directory.disable_state import routes as disable_state_routes
from redline.identity.directory.disable_state.service import DisableStateService
from redline.identity.directory.documents import routes as document_routes
from redline.identity.directory.documents.service import DocumentService
from redline.identity.directory.folders import routes as folder_routes
from redline.identity.directory.folders.service import FolderService
from redline.identity.directory.organizations import routes as organization_routes
from redline.identity.directory.organizations.service import OrganizationService
from redline.identity.directory.user_groups import routes as user_group_routes
from redline.identity.directory.user_groups.service import UserGroupService
from redline.identity.domainrequests import routes as domain_request_routes
from redline.identity.domainrequests.service import DomainRequestService
from redline.identity.invitations import routes as invitation_routes
from redline.identity.invitations.service import InvitationService
from redline.identity.key_settings import routes as config_routes
from redline.identity.key_settings.service import KeySettingsService
from redline.identity.listeners import (
    run_migration_reports,
    run_personal_data_reports,
    watch_identity_changes,
)
from redline.identity.login import routes as login_routes
from redline.identity.login.service import LoginService
from redline.identity.mailer import Mailer
from redline.identity.migration import routes as migration_routes
from redline.identity.migration.service import MigrationService
from redline.identity.migration.storage import IdentityDocuments
from redline.identity.permissions import routes as permission_routes
from redline.identity.permissions.access import AccessService
from redline.identity.permissions.service import PermissionsService
from redline.identity.permissions.user_tokens import UserTokens
from redline.identity.personal_data import routes as personal_data_routes
from redline.identity.personal_data.export import UserDataExport
from redline.identity.personal_data.jobs import ErasureJobs
from redline.identity.personal_data.own_data import IDENTITY_KINDS
from redline.identity.provider import routes as provider_routes
from redline.identity.provider.circuit import ProviderCircuits
from redline.identity.provider.client import PermissionProvider
from redline.identity.provider.service import ProviderConfigService
from redline.identity.provider.signature import PermissionSigner
from redline.identity.rpc import (
    serve_access_check,
    serve_auth_verify,
    serve_config_get,
    serve_disable_state,
    serve_documents_ensure,
    serve_documents_in_folder,
    serve_user_contacts,
    serve_user_group_members,
)
from redline.identity.schema import SCHEMA
from redline.identity.settings import IdentitySettings
from redline.identity.tokens import Sealer
from redline.identity.users import routes as user_routes
from redline.identity.users.service import UsersService
from redline.identity.workspace import routes as workspace_routes
from redline.identity.workspace.service import WorkspaceService
from redline.mail import MailSender, sender_for
from redline.pg import Pool
from redline.runtime.access import ACCESS_CLIENT
from redline.runtime.app import ServicePlugin, background, build_app
from redline.runtime.document_migration import take_part_in_document_migration
from redline.runtime.keys import derive_key, page_tokens_for
from redline.runtime.mail_quota import mail_quota_for
from redline.runtime.personal_data import take_part_in_personal_data
from redline.runtime.resources import BUS, POOL, SECRET_KEY, VERIFIER
from redline.webhooks import AddressGuard, WebhookClient

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"

# The whole URL map, feature by feature (the OpenAPI document lists them in this order).
ENDPOINTS: list[Endpoint] = [
    *workspace_routes.ENDPOINTS,
    *login_routes.ENDPOINTS,
    *config_routes.ENDPOINTS,
    *advanced_webhook_routes.ENDPOINTS,
    *app_config_routes.ENDPOINTS,
    *domain_request_routes.ENDPOINTS,
    *provider_routes.ENDPOINTS,
    *organization_routes.ENDPOINTS,
    *folder_routes.ENDPOINTS,
    *document_routes.ENDPOINTS,
    *disable_state_routes.ENDPOINTS,
    *user_routes.ENDPOINTS,
    *invitation_routes.ENDPOINTS,
    *user_group_routes.ENDPOINTS,
    *permission_routes.ENDPOINTS,
    *migration_routes.ENDPOINTS,
    *personal_data_routes.ENDPOINTS,
]


def config_sealer(secret_key: bytes) -> Sealer:
    """Seals the secrets of API keys' configuration (AI model keys, the provider's token)."""
    return Sealer(derive_key(secret_key, "identity.config-seal"))


def make_service(
    pool: Pool,
    secret_key: bytes,
    on_revoked: Callable[[str], None],
    settings: IdentitySettings,
    on_access_changed: Callable[[str], None] = FORGET_NOTHING,
) -> WorkspaceService:
    return WorkspaceService(
        pool,
        Sealer(derive_key(secret_key, "identity.token-seal")),
        page_tokens_for(secret_key),
        on_revoked=on_revoked,
        webhook_guard=AddressGuard(settings.webhook_allow),
        config_sealer=config_sealer(secret_key),
        workspace_cache_ttl_s=settings.workspace_cache_ttl_s,
        on_access_changed=on_access_changed,
        max_api_keys=settings.max_api_keys_per_workspace,
    )


def make_mailer(settings: IdentitySettings) -> Mailer:
    """The relay of REDLINE_SMTP_URL (None when unset: mail-sending calls say so), and links
    pointing at REDLINE_PUBLIC_URL. A malformed URL stops the start, naming the setting."""
    sender: MailSender | None = None
    if settings.smtp_url:
        sender = sender_for(
            settings.smtp_url, from_address=settings.smtp_from, timeout_s=settings.smtp_timeout_s
        )
    return Mailer(sender, settings.public_url or f"http://{settings.host}:{settings.port}")


def _service(
    settings: IdentitySettings,
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    @contextlib.asynccontextmanager
    async def context(app: web.Application) -> AsyncIterator[None]:
        service = make_service(
            app[POOL],
            app[SECRET_KEY],
            app[VERIFIER].forget_api_key,
            settings,
            app[ACCESS_CLIENT].forget_api_key,
        )
        app[WORKSPACE] = service
        app[MIGRATION] = MigrationService(app[POOL], settings.migration_participants)
        participants = settings.personal_data_participants
        app[USER_DATA_EXPORT] = UserDataExport(
            app[BUS], app[PAGE_TOKENS], participants, rpc_timeout_s=10.0
        )
        app[ERASURE_JOBS] = ErasureJobs(app[POOL], participants)
        _add_settings(app, settings)
        _add_directory(app, settings)
        mailer = make_mailer(settings)
        _add_mail(app, settings, mailer)
        # Folders that take the default access type follow a change of the setting.
        await app[FOLDERS].apply_default_access()
        subscriptions = await _serve(app, service)
        try:
            yield
        finally:
            for subscription in subscriptions:
                await subscription.unsubscribe()
            await mailer.close()

    return context


def _add_settings(app: web.Application, settings: IdentitySettings) -> None:
    """The services of an API key's settings: webhooks, app settings, domains, providers."""
    app[ADVANCED_WEBHOOKS] = AdvancedWebhookService(
        app[POOL],
        Sealer(derive_key(app[SECRET_KEY], "identity.advanced-webhook-secret")),
        AddressGuard(settings.webhook_allow),
        page_tokens_for(app[SECRET_KEY]),
    )
    app[KEY_SETTINGS] = KeySettingsService(
        app[POOL], AddressGuard(settings.webhook_allow), app[ADVANCED_WEBHOOKS].endpoints_of
    )
    app[APP_SETTINGS] = AppSettingsService(
        app[POOL],
        config_sealer(app[SECRET_KEY]),
        settings.default_access_type,
    )
    app[DOMAIN_REQUESTS] = DomainRequestService(app[POOL])
    app[PROVIDER_CONFIG] = ProviderConfigService(
        app[POOL],
        config_sealer(app[SECRET_KEY]),
        AddressGuard(settings.webhook_allow),
        app[ACCESS_CLIENT].forget_api_key,
    )


def _add_directory(app: web.Application, settings: IdentitySettings) -> None:
    """The services of who may see what: users, permissions, organizations, folders,
    documents, user groups and what is disabled."""
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
    app[FOLDERS] = FolderService(
        app[POOL], app[PAGE_TOKENS], settings.default_access_type, forget_access
    )
    app[DOCUMENTS] = DocumentService(
        app[POOL], app[PAGE_TOKENS], settings.default_access_type, forget_access
    )
    app[USER_GROUPS] = UserGroupService(app[POOL])
    app[DISABLE_STATE] = DisableStateService(app[POOL], forget_access)


def _add_mail(app: web.Application, settings: IdentitySettings, mailer: Mailer) -> None:
    """The services that mail people: login links and invitations."""
    app[LOGIN] = LoginService(
        app[POOL],
        mailer,
        ttl_s=settings.login_link_ttl_s,
        continue_hosts=settings.login_continue_hosts,
    )
    app[INVITATIONS] = InvitationService(
        app[POOL],
        mailer,
        page_tokens_for(app[SECRET_KEY]),
        UserTokens(app[SECRET_KEY], settings.user_token_ttl_s),
        app[ACCESS_CLIENT].forget_api_key,
        ttl_s=settings.invitation_ttl_s,
        default_access_type=settings.default_access_type,
        quota=mail_quota_for(app[POOL], "identity", settings),
    )


async def _serve(app: web.Application, service: WorkspaceService) -> list[Subscription]:
    """What identity answers over NATS, and the identity events it watches."""
    return [
        await serve_auth_verify(app[BUS], app[VERIFIER]),
        await serve_config_get(app[BUS], app[KEY_SETTINGS]),
        await serve_documents_ensure(app[BUS], app[POOL]),
        await serve_access_check(app[BUS], app[ACCESS]),
        await serve_documents_in_folder(app[BUS], app[POOL]),
        await serve_user_group_members(app[BUS], app[USER_GROUPS]),
        await serve_user_contacts(app[BUS], app[POOL]),
        await serve_disable_state(app[BUS], app[DISABLE_STATE]),
        await watch_identity_changes(app[BUS], service),
    ]


def _access(
    settings: IdentitySettings,
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    """The access rule, with the guarded client that asks keys' permission providers."""

    @contextlib.asynccontextmanager
    async def context(app: web.Application) -> AsyncIterator[None]:
        client = WebhookClient(
            AddressGuard(settings.webhook_allow),
            timeout_s=settings.permission_provider_timeout_s,
            ca_file=settings.webhook_ca_file,
            user_agent="Redline-Permissions/1",
        )
        async with client:
            signer = PermissionSigner(app[SECRET_KEY])
            app[PERMISSION_SIGNER] = signer
            circuits = ProviderCircuits(
                concurrency=settings.permission_provider_concurrency,
                queue_wait_s=settings.permission_provider_queue_wait_s,
                failures_to_open=settings.permission_provider_breaker_failures,
                cooldown_s=settings.permission_provider_breaker_cooldown_s,
            )
            provider = PermissionProvider(
                client,
                signer,
                settings.permission_provider_cache_ttl_s,
                circuits,
                settings.permission_provider_failure_cache_ttl_s,
            )
            app[ACCESS] = AccessService(
                app[POOL], settings.default_access_type, provider, config_sealer(app[SECRET_KEY])
            )
            yield

    return context


def plugin(settings: IdentitySettings) -> ServicePlugin:
    def setup(app: web.Application) -> None:
        add_endpoints(app, ENDPOINTS)
        login_routes.add_link_routes(app)
        invitation_routes.add_link_routes(app)
        app.cleanup_ctx.append(_access(settings))
        app.cleanup_ctx.append(_service(settings))
        app.cleanup_ctx.append(
            take_part_in_document_migration(SCHEMA, lambda app: IdentityDocuments())
        )
        app.cleanup_ctx.append(background("identity-migration-reports", run_migration_reports))
        app.cleanup_ctx.append(take_part_in_personal_data(SCHEMA, lambda app: IDENTITY_KINDS))
        app.cleanup_ctx.append(
            background("identity-personal-data-reports", run_personal_data_reports)
        )
        app.cleanup_ctx.append(
            background(
                "identity-personal-data-retry",
                lambda app: app[ERASURE_JOBS].keep_asking(settings.personal_data_retry_s),
            )
        )

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
