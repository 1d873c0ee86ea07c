"""Taking part in a document migration: the same two phases for every service that holds
document data.

1. `requested`: report whether the new document id already holds data here (nothing moves).
2. `approved` (sent only when every participant reported the new id free): move this service's
   rows from the old id to the new one, then report how many moved.

Each phase runs in one transaction with the inbox claim and the reply event, so a redelivered
event does nothing twice and a crash mid-way leaves either all of it or none.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Protocol

from aiohttp import web

from redline.bus import DurableConsumer
from redline.pg import Connection, Pool, claim_event, write_events
from redline.proto.events import (
    DocumentMigrationApproved,
    DocumentMigrationChecked,
    DocumentMigrationMoved,
    DocumentMigrationRequested,
    Event,
)
from redline.proto.subjects import DOCUMENT_MIGRATION_PHASES
from redline.runtime.resources import BUS, POOL
from redline.runtime.tasks import running

_CONSUMER = "document-migration"


class DocumentStore(Protocol):
    """A service's own document data, as migration sees it."""

    async def holds_document(
        self, conn: Connection, api_key: str, organization_id: str, document_id: str
    ) -> bool: ...

    async def move_document(
        self, conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
    ) -> int: ...


class MigrationParticipant:
    def __init__(self, service: str, pool: Pool, store: DocumentStore) -> None:
        self._service = service  # also the service's schema
        self._pool = pool
        self._store = store

    async def handle(self, event: Event) -> None:
        if isinstance(event, DocumentMigrationRequested | DocumentMigrationApproved) and (
            self._service in event.participants
        ):
            async with self._pool.acquire() as conn, conn.transaction():
                if not await claim_event(conn, self._service, _CONSUMER, event.id):
                    return
                if isinstance(event, DocumentMigrationRequested):
                    reply: Event = await self._check(conn, event)
                else:
                    reply = await self._move(conn, event)
                await write_events(conn, self._service, [reply])

    async def _check(
        self, conn: Connection, event: DocumentMigrationRequested
    ) -> DocumentMigrationChecked:
        taken = await self._store.holds_document(
            conn, event.apiKey, event.organizationId, event.newDocumentId
        )
        return DocumentMigrationChecked(
            workspaceId=event.workspaceId,
            service=self._service,
            migrationId=event.migrationId,
            apiKey=event.apiKey,
            ok=not taken,
            reason=f"{self._service} already holds data for the new document id" if taken else None,
        )

    async def _move(
        self, conn: Connection, event: DocumentMigrationApproved
    ) -> DocumentMigrationMoved:
        moved = await self._store.move_document(
            conn, event.apiKey, event.organizationId, event.documentId, event.newDocumentId
        )
        return DocumentMigrationMoved(
            workspaceId=event.workspaceId,
            service=self._service,
            migrationId=event.migrationId,
            apiKey=event.apiKey,
            movedRecords=moved,
        )


def take_part_in_document_migration(
    service: str, store: Callable[[web.Application], DocumentStore]
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    """A cleanup context running `service`'s migration consumer while the app serves."""

    @contextlib.asynccontextmanager
    async def context(app: web.Application) -> AsyncIterator[None]:
        participant = MigrationParticipant(service, app[POOL], store(app))
        consumer = DurableConsumer(
            app[BUS].js,
            f"{service}-document-migration",
            participant.handle,
            filter_subjects=DOCUMENT_MIGRATION_PHASES,
        )
        async with running(consumer.run(), name=f"{service}-document-migration"):
            yield

    return context
