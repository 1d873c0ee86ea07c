"""Document migration: request and response Structs."""

from __future__ import annotations

from typing import Literal

import msgspec

from redline.identity.fields import Id, Request

MigrationStatus = Literal["pending", "in_progress", "completed", "failed"]


class MigrateDocument(Request):
    organizationId: Id
    documentId: Id
    newDocumentId: Id


class MigrationStarted(msgspec.Struct):
    migrationId: str


class MigrationStatusRequest(Request):
    organizationId: Id
    migrationId: Id


class MigrationState(msgspec.Struct, omit_defaults=True):
    migrationId: str
    status: MigrationStatus
    failureReason: str | None = None
