"""Document migration, coordinated by identity.

`start` records a `pending` job and asks every participating service to check the new id
(`requested`); from then until it ends the new id is held: no document can be created with it.
When all report it free, the job is `in_progress` and they are told to move
(`approved`); when all have moved it is `completed`. Any participant finding data under the new id
fails the job before anything moves. The job lives in PostgreSQL and the phases travel as
outbox events to durable consumers, so a restart mid-way resumes where it stopped, and every step
is idempotent.
"""

from __future__ import annotations

import secrets

from msgspec.structs import replace

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound
from redline.identity.access_changes import write_access_changed
from redline.identity.directory.disable_state.service import require_writable
from redline.identity.directory.storage import hold_document_id
from redline.identity.migration import models, storage
from redline.identity.schema import SCHEMA
from redline.pg import Connection, Pool, write_events
from redline.proto.events import (
    DocumentMigrationApproved,
    DocumentMigrationChecked,
    DocumentMigrationMoved,
    DocumentMigrationRequested,
    Event,
)


def _migration_id() -> str:
    return "mig_" + secrets.token_urlsafe(15)


async def _reserve_new_id(conn: Connection, api_key: str, request: models.MigrateDocument) -> None:
    """Hold the new document id until the transaction ends, so that no document is created with
    it between this check and the migration that then reserves it; refuse an id that already
    holds data."""
    await hold_document_id(conn, api_key, request.organizationId, request.newDocumentId)
    if await storage.holds_document(conn, api_key, request.organizationId, request.newDocumentId):
        raise InvalidArgument.field("data.newDocumentId", "newDocumentId already holds data.")


def _requested(caller: ApiKeyPrincipal, row: storage.MigrationRow) -> DocumentMigrationRequested:
    return DocumentMigrationRequested(
        workspaceId=caller.workspace_id,
        migrationId=row.migration_id,
        apiKey=caller.api_key,
        organizationId=row.organization_id,
        documentId=row.document_id,
        newDocumentId=row.new_document_id,
        participants=row.participants,
    )


class MigrationService:
    def __init__(self, pool: Pool, participants: list[str]) -> None:
        self._pool = pool
        self._participants = participants

    async def start(
        self, caller: ApiKeyPrincipal, request: models.MigrateDocument
    ) -> models.MigrationStarted:
        if request.newDocumentId == request.documentId:
            raise InvalidArgument.field(
                "data.newDocumentId", "newDocumentId must differ from documentId."
            )
        async with self._pool.acquire() as conn, conn.transaction():
            # Moving a disabled document's data to a new id would write it back to life.
            await require_writable(
                conn, caller.api_key, request.organizationId, [request.documentId]
            )
            active = await storage.active_for_document(
                conn, caller.api_key, request.organizationId, request.documentId
            )
            if active is not None:
                return self._same_or_conflict(active, request)
            await _reserve_new_id(conn, caller.api_key, request)
            row = storage.MigrationRow(
                api_key=caller.api_key,
                migration_id=_migration_id(),
                organization_id=request.organizationId,
                document_id=request.documentId,
                new_document_id=request.newDocumentId,
                status="pending",
                failure_reason=None,
                participants=list(self._participants),
                checks={},
                moves={},
            )
            if not await storage.insert(conn, row):
                return await self._after_lost_race(conn, caller.api_key, request)
            # A decision cached for the new id before now took it for an unknown document.
            await write_events(conn, SCHEMA, [_requested(caller, row)])
            await write_access_changed(conn, caller, [row.organization_id])
        return models.MigrationStarted(migrationId=row.migration_id)

    async def _after_lost_race(
        self, conn: Connection, api_key: str, request: models.MigrateDocument
    ) -> models.MigrationStarted:
        """Another request for this document won the race: answer as it would."""
        raced = await storage.active_for_document(
            conn, api_key, request.organizationId, request.documentId
        )
        if raced is None:
            raise Aborted(
                f"A migration of document {request.documentId} finished while this one"
                " was being started; try again."
            )
        return self._same_or_conflict(raced, request)

    @staticmethod
    def _same_or_conflict(
        active: storage.MigrationRow, request: models.MigrateDocument
    ) -> models.MigrationStarted:
        if active.new_document_id == request.newDocumentId:
            return models.MigrationStarted(migrationId=active.migration_id)
        raise FailedPrecondition(
            f"Document {request.documentId} is already being migrated "
            f"(migration {active.migration_id})."
        )

    async def status(
        self, caller: ApiKeyPrincipal, request: models.MigrationStatusRequest
    ) -> models.MigrationState:
        row = await storage.get(self._pool, caller.api_key, request.migrationId)
        if row is None or row.organization_id != request.organizationId:
            raise NotFound("Migration not found.")
        return models.MigrationState(
            migrationId=row.migration_id, status=row.status, failureReason=row.failure_reason
        )

    # replies from participants ----------------------------------------------------------------

    async def on_reply(self, event: Event) -> None:
        if not isinstance(event, DocumentMigrationChecked | DocumentMigrationMoved):
            return
        async with self._pool.acquire() as conn, conn.transaction():
            row = await storage.get(conn, event.apiKey, event.migrationId, for_update=True)
            if row is None or row.status in ("completed", "failed"):
                return
            if event.service not in row.participants:
                return
            if isinstance(event, DocumentMigrationChecked):
                await self._record_check(conn, row, event)
            else:
                await self._record_move(conn, row, event)

    async def _record_check(
        self, conn: Connection, row: storage.MigrationRow, event: DocumentMigrationChecked
    ) -> None:
        checks = {**row.checks, event.service: event.ok}
        if not event.ok:
            failed = replace(row, checks=checks, status="failed", failure_reason=event.reason)
            await storage.save_progress(conn, failed)
            return
        if row.status != "pending" or set(checks) != set(row.participants):
            await storage.save_progress(conn, replace(row, checks=checks))
            return
        approved = replace(row, checks=checks, status="in_progress")
        await storage.save_progress(conn, approved)
        await write_events(
            conn,
            SCHEMA,
            [
                DocumentMigrationApproved(
                    workspaceId=event.workspaceId,
                    migrationId=row.migration_id,
                    apiKey=row.api_key,
                    organizationId=row.organization_id,
                    documentId=row.document_id,
                    newDocumentId=row.new_document_id,
                    participants=row.participants,
                )
            ],
        )

    async def _record_move(
        self, conn: Connection, row: storage.MigrationRow, event: DocumentMigrationMoved
    ) -> None:
        moves = {**row.moves, event.service: event.movedRecords}
        done = set(moves) == set(row.participants)
        await storage.save_progress(
            conn, replace(row, moves=moves, status="completed" if done else row.status)
        )
