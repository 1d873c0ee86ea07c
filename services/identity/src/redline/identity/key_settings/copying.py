"""Copying one API key's configuration onto another of the same workspace
(/v2/workspace/apikey/copy).

The target ends up configured exactly as the source: its allowed domains, basic and advanced
webhooks, activity logs, app configuration and permission provider are replaced (a section the
source never configured returns to its defaults). Secrets sealed for the source are sealed again
for the target. Auth tokens, users, grants and the directory are not configuration: they stay.
Every section that changes publishes its event, as an update of it would.
"""

from __future__ import annotations

from redline.envelope.auth import ApiKeyPrincipal
from redline.identity.access_changes import ALL_ORGANIZATIONS, access_changed_event
from redline.identity.app_settings.service import reseal_app
from redline.identity.key_settings import storage
from redline.identity.key_settings.service import (
    activity_state,
    advanced_state,
    save_settings,
    webhook_event_state,
)
from redline.identity.key_settings.storage import Section
from redline.identity.provider.stored import reseal_provider
from redline.identity.tokens import Sealer
from redline.pg import Connection
from redline.proto.events import (
    ActivityConfigUpdated,
    AdvancedWebhookConfigUpdated,
    DomainsUpdated,
    Event,
    WebhookConfigUpdated,
)


async def copy_config(
    conn: Connection, source: ApiKeyPrincipal, target: ApiKeyPrincipal, sealer: Sealer, now: int
) -> list[Event]:
    """Copy in the caller's transaction; returns the events to write."""
    ws, key = target.workspace_id, target.api_key
    copied = await storage.read_config(conn, source.api_key)
    before = await storage.lock_config(conn, key)
    events: list[Event] = []
    domains = await storage.allowed_domains(conn, source.api_key)
    had = await storage.allowed_domains(conn, key)
    if domains != had:
        await storage.replace_domains(conn, key, domains)
        added = [d for d in domains if d not in had]
        removed = [d for d in had if d not in domains]
        events.append(
            DomainsUpdated(
                workspaceId=ws, apiKey=key, domains=domains, added=added, removed=removed
            )
        )
    # Switches the copy moves count as moved now, as if the target had been updated.
    switches = (Section.WEBHOOK, Section.ADVANCED_WEBHOOK, Section.ACTIVITY)
    after = before
    for section in switches:
        after = await save_settings(conn, key, after, section, copied.section(section), now)
    app = reseal_app(copied.app, sealer, source.api_key, key)
    await storage.save_section(conn, key, Section.APP, app)
    provider = reseal_provider(copied.permission_provider, sealer, source.api_key, key)
    await storage.save_section(conn, key, Section.PERMISSION_PROVIDER, provider)
    events += [
        WebhookConfigUpdated(
            workspaceId=ws, apiKey=key, config=webhook_event_state(copied.webhook)
        ),
        AdvancedWebhookConfigUpdated(
            workspaceId=ws, apiKey=key, config=advanced_state(copied.advanced_webhook)
        ),
        ActivityConfigUpdated(workspaceId=ws, apiKey=key, config=activity_state(copied.activity)),
    ]
    if copied.permission_provider != before.permission_provider:
        events.append(access_changed_event(target, ALL_ORGANIZATIONS))
    return events
