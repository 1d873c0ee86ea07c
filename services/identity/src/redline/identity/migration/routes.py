"""The URL map of document migration: /v2/organizations/documents/migrate and migrate/status,
which move a document's data to a new document id in every service."""

from __future__ import annotations

from redline.envelope import Call, Endpoint
from redline.identity.app_keys import MIGRATION
from redline.identity.migration import models


async def migrate_document(call: Call, request: models.MigrateDocument) -> models.MigrationStarted:
    return await call.app[MIGRATION].start(call.api_key, request)


async def migration_status(
    call: Call, request: models.MigrationStatusRequest
) -> models.MigrationState:
    return await call.app[MIGRATION].status(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/organizations/documents/migrate",
        migrate_document,
        models.MigrateDocument,
        models.MigrationStarted,
        message="Document migration started successfully.",
        summary="Move everything keyed by a document id to a new id, in every service",
        tags=("documents",),
    ),
    Endpoint(
        "/v2/organizations/documents/migrate/status",
        migration_status,
        models.MigrationStatusRequest,
        models.MigrationState,
        message="Migration status retrieved successfully.",
        summary="Status of a document migration: pending, in_progress, completed or failed",
        tags=("documents",),
    ),
]
