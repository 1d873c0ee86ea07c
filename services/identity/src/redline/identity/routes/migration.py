"""Identity routes: moving a document's data to a new document id."""

from __future__ import annotations

from redline.envelope import Endpoint
from redline.identity.handlers import migration as migration_handlers
from redline.identity.models import migration as migration_models

MIGRATION: list[Endpoint] = [
    Endpoint(
        "/v2/organizations/documents/migrate",
        migration_handlers.migrate_document,
        migration_models.MigrateDocument,
        migration_models.MigrationStarted,
        message="Document migration started.",
        summary="Move everything keyed by a document id to a new id, in every service",
        tags=("documents",),
    ),
    Endpoint(
        "/v2/organizations/documents/migrate/status",
        migration_handlers.migration_status,
        migration_models.MigrationStatusRequest,
        migration_models.MigrationState,
        message="Migration status retrieved.",
        summary="Status of a document migration: pending, in_progress, completed or failed",
        tags=("documents",),
    ),
]
