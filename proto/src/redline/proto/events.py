"""Domain events: one tagged union over every service's events.

Evolution rules (msgspec's schema evolution): a new field gets a default, a field's type never
changes, consumers ignore fields they don't know. The tag is `<service>.<eventType>` and the NATS
subject is `evt.` + tag: `evt.comments.comment_annotation.add` carries
`comments.comment_annotation.add`.
"""

from __future__ import annotations

import time
import typing
import uuid
from typing import Union

import msgspec


class Event(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    """Fields every event carries. `id` is unique and doubles as the JetStream message id."""

    workspaceId: str
    id: str = msgspec.field(default_factory=lambda: new_event_id())
    occurredAt: int = msgspec.field(default_factory=lambda: now_ms())  # ms since the epoch

    @property
    def subject(self) -> str:
        tag = type(self).__struct_config__.tag
        assert isinstance(tag, str)
        return "evt." + tag


# identity ------------------------------------------------------------------------------------


class WorkspaceCreated(Event, tag="identity.workspace.created", frozen=True):
    ownerEmail: str
    name: str


class ApiKeyCreated(Event, tag="identity.apikey.created", frozen=True):
    apiKey: str
    apiKeyName: str
    keyType: str


class ApiKeyUpdated(Event, tag="identity.apikey.updated", frozen=True):
    apiKey: str
    apiKeyName: str


class KeyRevoked(Event, tag="identity.key.revoked", frozen=True):
    """A credential stopped working: every service drops what it cached for it at once."""

    # `apiKey` for an API key's auth token; `workspace` for the workspace auth token.
    credential: str
    apiKey: str | None = None


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


AnyEvent = Union[  # noqa: UP007 (msgspec needs a runtime union object)
    WorkspaceCreated,
    ApiKeyCreated,
    ApiKeyUpdated,
    KeyRevoked,
    DocumentMigrationRequested,
    DocumentMigrationApproved,
    DocumentMigrationChecked,
    DocumentMigrationMoved,
]

EVENT_TYPES: tuple[type[Event], ...] = typing.get_args(AnyEvent)

_json_decoder = msgspec.json.Decoder(AnyEvent)
_json_encoder = msgspec.json.Encoder()


def encode_event(event: Event) -> bytes:
    return _json_encoder.encode(event)


def decode_event(payload: bytes) -> Event:
    """Decode any known event; raises msgspec.DecodeError for unknown types or bad payloads."""
    event: Event = _json_decoder.decode(payload)
    return event


def new_event_id() -> str:
    return uuid.uuid4().hex


def now_ms() -> int:
    return time.time_ns() // 1_000_000
