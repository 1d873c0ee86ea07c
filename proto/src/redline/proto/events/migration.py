"""Events of document migration."""

from __future__ import annotations

from redline.proto.events.base import Event

# document migration ---------------------------------------------------------------------------
# Identity coordinates; every service holding document data takes part in two phases: check that
# the new id holds nothing (reply `checked`), then, once all agreed, move (reply `moved`). The
# replies travel on `evt.<service>.document_migration.<phase>`, so their subject names the sender.


class DocumentMigrationRequested(Event, tag="identity.document_migration.requested", frozen=True):
    migrationId: str
    apiKey: str
    organizationId: str
    documentId: str
    newDocumentId: str
    participants: list[str]


class DocumentMigrationApproved(Event, tag="identity.document_migration.approved", frozen=True):
    migrationId: str
    apiKey: str
    organizationId: str
    documentId: str
    newDocumentId: str
    participants: list[str]


class DocumentMigrationChecked(Event, tag="document_migration.checked", frozen=True):
    service: str
    migrationId: str
    apiKey: str
    ok: bool
    reason: str | None = None

    @property
    def subject(self) -> str:
        return f"evt.{self.service}.document_migration.checked"


class DocumentMigrationMoved(Event, tag="document_migration.moved", frozen=True):
    service: str
    migrationId: str
    apiKey: str
    movedRecords: int = 0

    @property
    def subject(self) -> str:
        return f"evt.{self.service}.document_migration.moved"
