"""HTTP handlers of document migration."""

from __future__ import annotations

from redline.envelope import Call
from redline.identity.app_keys import MIGRATION
from redline.identity.models import migration as models


async def migrate_document(call: Call, request: models.MigrateDocument) -> models.MigrationStarted:
    key = call.api_key
    return await call.app[MIGRATION].start(key.workspace_id, key.api_key, request)


async def migration_status(
    call: Call, request: models.MigrationStatusRequest
) -> models.MigrationState:
    return await call.app[MIGRATION].status(call.api_key.api_key, request)
