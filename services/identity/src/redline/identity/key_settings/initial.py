"""The configuration an API key starts with: what `apikey/create` gives, stored under the rules
of the update endpoints it would otherwise take (webhooks, allowed domains, email)."""

from __future__ import annotations

from redline.envelope import ApiKeyPrincipal
from redline.identity.key_settings import models, storage
from redline.identity.key_settings.rules import (
    check_email,
    check_webhook,
    merge_email,
    merge_webhook,
)
from redline.identity.key_settings.service import save_settings, sent_fields, webhook_event_state
from redline.identity.key_settings.storage import Section
from redline.pg import Connection
from redline.proto.events import DomainsUpdated, Event, WebhookConfigUpdated
from redline.webhooks import AddressGuard


async def store_initial_config(
    conn: Connection,
    new_key: ApiKeyPrincipal,
    use_webhook_service: bool | None,
    webhook_settings: models.WebhookServiceConfig | None,
    domains: list[str],
    guard: AddressGuard,
    now: int,
) -> list[Event]:
    """Store the webhook settings given at `apikey/create` as the key's basic webhook config,
    under the same rules as `webhookconfig/update`; returns the config events to write."""
    events: list[Event] = []
    if domains:
        events.append(
            DomainsUpdated(
                workspaceId=new_key.workspace_id,
                apiKey=new_key.api_key,
                domains=domains,
                added=domains,
            )
        )
    request = models.UpdateWebhookConfig(
        useWebhookService=use_webhook_service, webhookServiceConfig=webhook_settings
    )
    patch = sent_fields(request)
    if not patch:
        return events
    document = merge_webhook(None, patch)
    check_webhook(document, patch, "data", guard)
    await storage.lock_config(conn, new_key.api_key)
    await save_settings(
        conn, new_key.api_key, storage.StoredConfig(), Section.WEBHOOK, document, now
    )
    events.append(
        WebhookConfigUpdated(
            workspaceId=new_key.workspace_id,
            apiKey=new_key.api_key,
            config=webhook_event_state(document),
        )
    )
    return events


async def store_initial_email(
    conn: Connection,
    api_key: str,
    use_email_service: bool | None,
    email_settings: models.EmailServiceConfig | None,
) -> None:
    """Store the email settings given at `apikey/create` as the key's email config, under the
    same rules as `emailconfig/update` (no event: nothing has read a new key's settings yet)."""
    patch = sent_fields(
        models.UpdateEmailConfig(
            useEmailService=use_email_service, emailServiceConfig=email_settings
        )
    )
    if not patch:
        return
    document = merge_email(None, patch)
    check_email(document)
    await storage.lock_config(conn, api_key)
    await storage.save_section(conn, api_key, Section.EMAIL, document)
