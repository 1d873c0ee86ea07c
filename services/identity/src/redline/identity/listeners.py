"""What identity hears on NATS: its own change events from other replicas (to drop cached
workspace documents), and the other services' replies to document migrations and personal data
erasure jobs that identity coordinates."""

from __future__ import annotations

import msgspec
from aiohttp import web
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from redline.bus import Bus, DurableConsumer
from redline.identity.app_keys import ERASURE_JOBS, MIGRATION
from redline.identity.workspace.service import WorkspaceService
from redline.proto.events import ApiKeyCreated, ApiKeyUpdated, WorkspaceCreated, decode_event
from redline.proto.subjects import (
    DOCUMENT_MIGRATION_REPLIES,
    IDENTITY_EVENTS,
    PERSONAL_DATA_ERASURE_REPORTS,
)
from redline.runtime.resources import BUS


async def watch_identity_changes(bus: Bus, service: WorkspaceService) -> Subscription:
    async def on_event(msg: Msg) -> None:
        try:
            event = decode_event(msg.data)
        except msgspec.DecodeError:
            return
        # Only workspace and API key changes alter the workspace document.
        if isinstance(event, WorkspaceCreated | ApiKeyCreated | ApiKeyUpdated):
            service.forget_workspace(event.workspaceId)

    return await bus.nc.subscribe(IDENTITY_EVENTS, cb=on_event)


async def run_migration_reports(app: web.Application) -> None:
    """Collect participants' replies to document migrations (identity coordinates them)."""
    consumer = DurableConsumer(
        app[BUS].js,
        "identity-migration-reports",
        app[MIGRATION].on_reply,
        filter_subjects=DOCUMENT_MIGRATION_REPLIES,
    )
    await consumer.run()


async def run_personal_data_reports(app: web.Application) -> None:
    """Collect services' reports on personal data erasure jobs (identity records them)."""
    consumer = DurableConsumer(
        app[BUS].js,
        "identity-personal-data-reports",
        app[ERASURE_JOBS].on_report,
        filter_subjects=PERSONAL_DATA_ERASURE_REPORTS,
    )
    await consumer.run()
