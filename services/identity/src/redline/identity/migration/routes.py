"""The URL map of document migration: /v2/organizations/documents/migrate and migrate/status,
which move a document's data to a new document id in every service."""

from __future__ import annotations

from redline.envelope import Endpoint
from redline.identity.app_keys import MIGRATION
from redline.identity.migration.service import MigrationService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/organizations/documents/migrate",
        MIGRATION,
        MigrationService.start,
        message="Document migration started successfully.",
        summary="Move everything keyed by a document id to a new id, in every service",
        tags=("documents",),
    ),
    Endpoint.of(
        "/v2/organizations/documents/migrate/status",
        MIGRATION,
        MigrationService.status,
        message="Migration status retrieved successfully.",
        summary="Status of a document migration: pending, in_progress, completed or failed",
        tags=("documents",),
    ),
]
