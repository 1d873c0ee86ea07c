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


class AccessChanged(Event, tag="identity.access.changed", frozen=True):
    """Grants changed in an organization of an API key: cached access decisions of the key are
    dropped by every process that holds some."""

    apiKey: str
    organizationId: str


# directory: organizations, folders, documents ------------------------------------------------
# `parentFolderId` / `folderId` None: at the organization's root. Every change that may alter
# effective access also emits `identity.access.changed` for the organization.


class OrganizationAdded(Event, tag="identity.organization.added", frozen=True):
    apiKey: str
    organizationId: str
    organizationName: str


class OrganizationUpdated(Event, tag="identity.organization.updated", frozen=True):
    apiKey: str
    organizationId: str
    organizationName: str


class OrganizationDeleted(Event, tag="identity.organization.deleted", frozen=True):
    """The organization went with everything in it: folders, documents, users' grants."""

    apiKey: str
    organizationId: str


class FolderAdded(Event, tag="identity.folder.added", frozen=True):
    apiKey: str
    organizationId: str
    folderId: str
    folderName: str
    parentFolderId: str | None
    accessType: str  # what applies after inheritance
    inheritFromParent: bool


class FolderUpdated(Event, tag="identity.folder.updated", frozen=True):
    """Renamed, moved, or its access changed; carries the state after the change."""

    apiKey: str
    organizationId: str
    folderId: str
    folderName: str
    parentFolderId: str | None
    accessType: str
    inheritFromParent: bool


class FolderDeleted(Event, tag="identity.folder.deleted", frozen=True):
    apiKey: str
    organizationId: str
    folderId: str
    # Everything that went with it: the folder and its subfolders, and the documents in them.
    folderIds: list[str]
    documentIds: list[str]


class DocumentAdded(Event, tag="identity.document.added", frozen=True):
    apiKey: str
    organizationId: str
    documentId: str
    documentName: str
    folderId: str | None
    # The document's own access type; None: its folder's, else the service default.
    accessType: str | None


class DocumentUpdated(Event, tag="identity.document.updated", frozen=True):
    """Renamed, moved, or its access type changed; carries the state after the change."""

    apiKey: str
    organizationId: str
    documentId: str
    documentName: str
    folderId: str | None
    accessType: str | None


class DocumentDeleted(Event, tag="identity.document.deleted", frozen=True):
    apiKey: str
    organizationId: str
    documentId: str


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


# per-API-key configuration -------------------------------------------------------------------
# Each config event carries the whole configuration after the write (not a diff), so a consumer
# acts on current configuration even when it missed an earlier event.


class WebhookServiceConfigState(msgspec.Struct, frozen=True, kw_only=True):
    """Basic webhook settings; an empty string is a value never set."""

    authToken: str = ""
    rawNotificationUrl: str = ""
    processedNotificationUrl: str = ""
    encodeData: bool = False
    encryptData: bool = False
    publicKey: str = ""
    triggers: dict[str, bool] = msgspec.field(default_factory=dict)
    enableDataProtection: bool = False


class WebhookConfigState(msgspec.Struct, frozen=True, kw_only=True):
    useWebhookService: bool = False
    webhookServiceConfig: WebhookServiceConfigState = msgspec.field(
        default_factory=WebhookServiceConfigState
    )


class AdvancedWebhookConfigState(msgspec.Struct, frozen=True, kw_only=True):
    isEnabled: bool = False
    encryptData: bool = False
    encodeData: bool = False
    publicKey: str = ""
    enableDataProtection: bool = False


class ActivityConfigState(msgspec.Struct, frozen=True, kw_only=True):
    isEnabled: bool = False
    enabledTime: int | None = None  # ms; None until activity logs were first enabled
    immutable: bool = False
    triggers: dict[str, bool] = msgspec.field(default_factory=dict)


class WebhookConfigUpdated(Event, tag="identity.config.webhook_updated", frozen=True):
    apiKey: str
    config: WebhookConfigState


class AdvancedWebhookConfigUpdated(
    Event, tag="identity.config.advanced_webhook_updated", frozen=True
):
    apiKey: str
    config: AdvancedWebhookConfigState


class ActivityConfigUpdated(Event, tag="identity.config.activity_updated", frozen=True):
    apiKey: str
    config: ActivityConfigState


class DomainsUpdated(Event, tag="identity.config.domains_updated", frozen=True):
    apiKey: str
    domains: list[str]  # every allowed domain of the key after the change
    added: list[str] = msgspec.field(default_factory=list)
    removed: list[str] = msgspec.field(default_factory=list)


AnyEvent = Union[  # noqa: UP007 (msgspec needs a runtime union object)
    WorkspaceCreated,
    ApiKeyCreated,
    ApiKeyUpdated,
    KeyRevoked,
    AccessChanged,
    OrganizationAdded,
    OrganizationUpdated,
    OrganizationDeleted,
    FolderAdded,
    FolderUpdated,
    FolderDeleted,
    DocumentAdded,
    DocumentUpdated,
    DocumentDeleted,
    DocumentMigrationRequested,
    DocumentMigrationApproved,
    DocumentMigrationChecked,
    DocumentMigrationMoved,
    WebhookConfigUpdated,
    AdvancedWebhookConfigUpdated,
    ActivityConfigUpdated,
    DomainsUpdated,
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
