"""The per-API-key configuration service: allowed domains, basic and advanced webhooks, activity
logs. Every change commits with an event carrying the whole configuration after the write. The
pure rules it applies live in `rules`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import msgspec

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import FailedPrecondition, Internal, InvalidArgument
from redline.identity.caller import caller_named, require_key_caller
from redline.identity.key_settings import models, storage
from redline.identity.key_settings.domains import normalise_domains
from redline.identity.key_settings.rules import (
    MAX_DOMAINS,
    check_activity,
    check_advanced_webhook,
    check_email,
    check_notification,
    check_webhook,
    merge_activity,
    merge_advanced_webhook,
    merge_email,
    merge_notification,
    merge_webhook,
    switch_times,
)
from redline.identity.key_settings.storage import JsonObject, Section
from redline.identity.schema import SCHEMA
from redline.pg import Connection, Pool, write_events
from redline.proto.events import (
    ActivityConfigState,
    ActivityConfigUpdated,
    AdvancedWebhookConfigState,
    AdvancedWebhookConfigUpdated,
    DomainsUpdated,
    EmailConfigState,
    EmailConfigUpdated,
    Event,
    NotificationConfigState,
    NotificationConfigUpdated,
    WebhookConfigState,
    WebhookConfigUpdated,
    now_ms,
)
from redline.proto.rpc import AdvancedEndpointState, ApiKeyConfig
from redline.webhooks import AddressGuard


def _webhook_state(document: JsonObject | None) -> WebhookConfigState:
    return msgspec.convert(document or {}, WebhookConfigState)


def webhook_event_state(document: JsonObject | None) -> WebhookConfigState:
    """The config as events carry it: without the receiver's auth token. Events are kept in the
    stream for days and read by every consumer; the token is read over rpc.identity.config.get."""
    state = _webhook_state(document)
    return msgspec.structs.replace(
        state,
        webhookServiceConfig=msgspec.structs.replace(state.webhookServiceConfig, authToken=""),
    )


def advanced_state(document: JsonObject | None) -> AdvancedWebhookConfigState:
    return msgspec.convert(document or {}, AdvancedWebhookConfigState)


def activity_state(document: JsonObject | None) -> ActivityConfigState:
    return msgspec.convert(document or {}, ActivityConfigState)


def _notification_state(document: JsonObject | None) -> NotificationConfigState:
    return msgspec.convert(document or {}, NotificationConfigState)


def email_state(document: JsonObject | None) -> EmailConfigState:
    """The email settings other services use (not the provider's API key)."""
    view = msgspec.convert(document or {}, models.EmailConfig)
    settings = view.emailServiceConfig
    return EmailConfigState(
        useEmailService=view.useEmailService,
        fromEmail=settings.fromEmail,
        fromCompany=settings.fromCompany,
        triggers=settings.triggers if isinstance(settings.triggers, dict) else {},
    )


def _notification_view(document: JsonObject | None) -> models.NotificationConfig:
    """The stored document with the defaults filled in; both trigger groups always present."""
    view = msgspec.convert(document or {}, models.NotificationConfig)
    triggers = view.notificationServiceConfig.triggers
    for group in ("comment", "huddle"):
        triggers.setdefault(group, {})
    return view


def sent_fields(request: msgspec.Struct) -> JsonObject:
    """The fields a request set (requests omit their None defaults)."""
    document: JsonObject = msgspec.to_builtins(request)
    return document


def _patch_of(request: msgspec.Struct, path: str, missing: str) -> JsonObject:
    """The fields an update sets; a request that sets none is refused at `path`."""
    patch = sent_fields(request)
    if not patch:
        raise InvalidArgument.field(path, missing, code="missing_field")
    return patch


async def save_settings(
    conn: Connection,
    api_key: str,
    stored: storage.StoredConfig,
    section: Section,
    document: JsonObject | None,
    now: int,
) -> storage.StoredConfig:
    """Save one section's document (None: as if never configured), and when each switch it
    moved changed position; returns the configuration after. Call after `lock_config` in the
    same transaction."""
    await storage.save_section(conn, api_key, section, document)
    switched = switch_times(section, stored.section(section), document, stored.switched, now)
    if switched != stored.switched:
        await storage.save_switched(conn, api_key, switched)
    return msgspec.structs.replace(stored, **{section.value: document}, switched=switched)


async def add_allowed_domains(
    conn: Connection, caller: ApiKeyPrincipal, wanted: list[str]
) -> list[str]:
    """Allow the normalised `wanted` domains not allowed yet, in the caller's transaction, with
    their event; returns those it added, in the order given."""
    await storage.lock_config(conn, caller.api_key)
    inserted = await storage.insert_domains(conn, caller.api_key, wanted)
    added = [d for d in wanted if d in inserted]
    if added:
        domains = await storage.allowed_domains(conn, caller.api_key)
        if len(domains) > MAX_DOMAINS:
            raise FailedPrecondition(f"An API key holds at most {MAX_DOMAINS} allowed domains.")
        event = DomainsUpdated(
            workspaceId=caller.workspace_id,
            apiKey=caller.api_key,
            domains=domains,
            added=added,
        )
        await write_events(conn, SCHEMA, [event])
    return added


# the service -----------------------------------------------------------------------------------


EndpointsOf = Callable[[str], Awaitable[list[AdvancedEndpointState]]]


class KeySettingsService:
    def __init__(
        self,
        pool: Pool,
        guard: AddressGuard,
        endpoints_of: EndpointsOf,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self._pool = pool
        # The key's advanced webhook endpoints, read with its settings for notify.
        self._endpoints_of = endpoints_of
        # Webhook URLs are checked against it when saved (notify checks again at delivery).
        self._guard = guard
        self._clock = clock

    # allowed domains ----------------------------------------------------------------------------

    async def get_domains(self, caller: ApiKeyPrincipal) -> models.AllowedDomains:
        require_key_caller(caller)
        domains = await storage.allowed_domains(self._pool, caller.api_key)
        return models.AllowedDomains(allowedDomains=domains, domains=domains)

    async def add_domains(
        self, caller: ApiKeyPrincipal, request: models.DomainsChange
    ) -> models.DomainsAdded:
        require_key_caller(caller)
        wanted = normalise_domains(request.domains, "data.domains")
        async with self._pool.acquire() as conn, conn.transaction():
            added = await add_allowed_domains(conn, caller, wanted)
        skipped = [d for d in wanted if d not in added]
        if skipped:
            # Raised after the commit: the new domains stay added (as the domains add endpoint
            # documents).
            raise Internal(
                "Domain(s) added to allowed domains; domains that were already there were skipped.",
                details={"domainsAdded": added, "skippedDomains": skipped},
            )
        return models.DomainsAdded(domainsAdded=added)

    async def delete_domains(
        self, caller: ApiKeyPrincipal, request: models.DomainsChange
    ) -> models.DomainsRemoved:
        require_key_caller(caller)
        wanted = normalise_domains(request.domains, "data.domains")
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.lock_config(conn, caller.api_key)
            deleted = await storage.delete_domains(conn, caller.api_key, wanted)
            removed = [d for d in wanted if d in deleted]
            if removed:
                event = DomainsUpdated(
                    workspaceId=caller.workspace_id,
                    apiKey=caller.api_key,
                    domains=await storage.allowed_domains(conn, caller.api_key),
                    removed=removed,
                )
                await write_events(conn, SCHEMA, [event])
        skipped = [d for d in wanted if d not in deleted]
        if skipped:
            # As `add_domains`: raised after the commit, the domains that were there stay removed.
            raise Internal(
                "Domain(s) removed from allowed domains; domains that were not there were skipped.",
                details={"domainsRemoved": removed, "skippedDomains": skipped},
            )
        return models.DomainsRemoved(domainsRemoved=removed)

    # basic webhooks -----------------------------------------------------------------------------

    async def get_webhook(self, caller: ApiKeyPrincipal) -> models.WebhookConfig:
        require_key_caller(caller)
        stored = await storage.read_config(self._pool, caller.api_key)
        return msgspec.convert(stored.webhook or {}, models.WebhookConfig)

    async def update_webhook(
        self, caller: ApiKeyPrincipal, request: models.UpdateWebhookConfig
    ) -> models.WebhookConfig:
        patch = _patch_of(
            request, "data", "Give useWebhookService or webhookServiceConfig (or both)."
        )

        def merged(stored: storage.StoredConfig, now: int) -> JsonObject:
            document = merge_webhook(stored.webhook, patch)
            check_webhook(document, patch, "data", self._guard)
            return document

        document = await self._update(
            caller,
            Section.WEBHOOK,
            merged,
            lambda d: WebhookConfigUpdated(
                workspaceId=caller.workspace_id,
                apiKey=caller.api_key,
                config=webhook_event_state(d),
            ),
        )
        return msgspec.convert(document, models.WebhookConfig)

    # advanced webhooks --------------------------------------------------------------------------

    async def get_advanced_webhook(self, caller: ApiKeyPrincipal) -> models.AdvancedWebhookConfig:
        require_key_caller(caller)
        stored = await storage.read_config(self._pool, caller.api_key)
        return msgspec.convert(stored.advanced_webhook or {}, models.AdvancedWebhookConfig)

    async def update_advanced_webhook(
        self, caller: ApiKeyPrincipal, request: models.UpdateAdvancedWebhookConfig
    ) -> models.AdvancedWebhookConfig:
        patch = _patch_of(request, "data", "At least one advanced webhook config field is needed.")

        def merged(stored: storage.StoredConfig, now: int) -> JsonObject:
            document = merge_advanced_webhook(stored.advanced_webhook, patch)
            check_advanced_webhook(document, patch)
            return document

        document = await self._update(
            caller,
            Section.ADVANCED_WEBHOOK,
            merged,
            lambda d: AdvancedWebhookConfigUpdated(
                workspaceId=caller.workspace_id, apiKey=caller.api_key, config=advanced_state(d)
            ),
        )
        return msgspec.convert(document, models.AdvancedWebhookConfig)

    # activity logs ------------------------------------------------------------------------------

    async def get_activity(self, caller: ApiKeyPrincipal) -> models.ActivityConfig:
        require_key_caller(caller)
        stored = await storage.read_config(self._pool, caller.api_key)
        return models.ActivityConfig(
            activityServiceConfig=msgspec.convert(
                stored.activity or {}, models.ActivityServiceSettings
            )
        )

    async def update_activity(
        self, caller: ApiKeyPrincipal, request: models.UpdateActivityConfig
    ) -> models.ActivityConfig:
        patch = _patch_of(
            request.activityServiceConfig,
            "data.activityServiceConfig",
            "activityServiceConfig needs at least one field.",
        )

        def merged(stored: storage.StoredConfig, now: int) -> JsonObject:
            document = merge_activity(stored.activity, patch, now)
            check_activity(document)
            return document

        document = await self._update(
            caller,
            Section.ACTIVITY,
            merged,
            lambda d: ActivityConfigUpdated(
                workspaceId=caller.workspace_id, apiKey=caller.api_key, config=activity_state(d)
            ),
        )
        return models.ActivityConfig(
            activityServiceConfig=msgspec.convert(document, models.ActivityServiceSettings)
        )

    # email --------------------------------------------------------------------------------------

    async def get_email(self, caller: ApiKeyPrincipal) -> models.EmailConfig:
        require_key_caller(caller)
        stored = await storage.read_config(self._pool, caller.api_key)
        return msgspec.convert(stored.email or {}, models.EmailConfig)

    async def update_email(
        self, caller: ApiKeyPrincipal, request: models.UpdateEmailConfig
    ) -> models.EmailConfig:
        patch = _patch_of(request, "data", "Give useEmailService or emailServiceConfig (or both).")

        def merged(stored: storage.StoredConfig, now: int) -> JsonObject:
            document = merge_email(stored.email, patch)
            check_email(document)
            return document

        document = await self._update(
            caller,
            Section.EMAIL,
            merged,
            lambda d: EmailConfigUpdated(
                workspaceId=caller.workspace_id, apiKey=caller.api_key, config=email_state(d)
            ),
        )
        return msgspec.convert(document, models.EmailConfig)

    # in-app notifications ------------------------------------------------------------------------

    async def get_notification(self, caller: ApiKeyPrincipal) -> models.NotificationConfig:
        require_key_caller(caller)
        stored = await storage.read_config(self._pool, caller.api_key)
        return _notification_view(stored.notification)

    async def update_notification(
        self, caller: ApiKeyPrincipal, request: models.UpdateNotificationConfig
    ) -> models.NotificationConfig:
        patch = _patch_of(
            request,
            "data",
            "At least one of useNotificationService or notificationServiceConfig must be provided.",
        )

        def merged(stored: storage.StoredConfig, now: int) -> JsonObject:
            document = merge_notification(stored.notification, patch)
            check_notification(document)
            return document

        document = await self._update(
            caller,
            Section.NOTIFICATION,
            merged,
            lambda d: NotificationConfigUpdated(
                workspaceId=caller.workspace_id,
                apiKey=caller.api_key,
                config=_notification_state(d),
            ),
        )
        return _notification_view(document)

    # one update ---------------------------------------------------------------------------------

    async def _update(
        self,
        caller: ApiKeyPrincipal,
        section: Section,
        merged: Callable[[storage.StoredConfig, int], JsonObject],
        event_of: Callable[[JsonObject], Event],
    ) -> JsonObject:
        """Every section's update: under the key's configuration lock, the section after the
        request (`merged` applies and checks it, raising for what the rules refuse), saved with
        the switches it moved and committed with its event; returns the section after."""
        require_key_caller(caller)
        async with self._pool.acquire() as conn, conn.transaction():
            stored = await storage.lock_config(conn, caller.api_key)
            now = self._clock()
            document = merged(stored, now)
            await save_settings(conn, caller.api_key, stored, section, document, now)
            await write_events(conn, SCHEMA, [event_of(document)])
        return document

    # for other services (NATS RPC) --------------------------------------------------------------

    async def current(self, api_key: str) -> ApiKeyConfig:
        """Everything notify acts on for the key, in one answer: each event reads it once."""
        caller = await caller_named(self._pool, api_key)
        stored = await storage.read_config(self._pool, caller.api_key)
        return ApiKeyConfig(
            workspaceId=caller.workspace_id,
            apiKey=caller.api_key,
            webhook=_webhook_state(stored.webhook),
            advancedWebhook=advanced_state(stored.advanced_webhook),
            activity=activity_state(stored.activity),
            notification=_notification_state(stored.notification),
            email=email_state(stored.email),
            advancedEndpoints=await self._endpoints_of(caller.api_key),
            switchedAt=stored.switched,
        )
