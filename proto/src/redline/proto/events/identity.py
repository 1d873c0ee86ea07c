"""Events of the identity service: workspaces, keys, directory, access, configuration."""

from __future__ import annotations

import msgspec

from redline.proto.events.base import Event

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
    """Grants changed in an organization of an API key, or the organization or one of its
    documents was disabled or enabled: cached access decisions and disable states of the key are
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


# per-API-key configuration -------------------------------------------------------------------
# Each config event carries the whole configuration after the write (not a diff), so a consumer
# acts on current configuration even when it missed an earlier event.


class WebhookServiceConfigState(msgspec.Struct, frozen=True, kw_only=True):
    """Basic webhook settings; an empty string is a value never set. In events `authToken` is
    always empty: the receiver's secret is read over rpc.identity.config.get, never from the
    stream."""

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


class NotificationDelayState(msgspec.Struct, frozen=True, kw_only=True):
    isEnabled: bool = False
    delaySeconds: int = 10


class NotificationBatchState(msgspec.Struct, frozen=True, kw_only=True):
    isEnabled: bool = False
    batchWindowSeconds: int = 10
    maxActivities: int = 2


class NotificationBatchesState(msgspec.Struct, frozen=True, kw_only=True):
    document: NotificationBatchState = msgspec.field(default_factory=NotificationBatchState)
    user: NotificationBatchState = msgspec.field(default_factory=NotificationBatchState)


class NotificationServiceConfigState(msgspec.Struct, frozen=True, kw_only=True):
    """`triggers` holds trigger groups (`comment`, `huddle`), each a map of event type to on."""

    triggers: dict[str, dict[str, bool]] = msgspec.field(default_factory=dict)
    delayConfig: NotificationDelayState = msgspec.field(default_factory=NotificationDelayState)
    batchConfig: NotificationBatchesState = msgspec.field(default_factory=NotificationBatchesState)


class NotificationConfigState(msgspec.Struct, frozen=True, kw_only=True):
    """The key's in-app notification settings (`/v2/workspace/notificationconfig/*`)."""

    useNotificationService: bool = False
    notificationServiceConfig: NotificationServiceConfigState = msgspec.field(
        default_factory=NotificationServiceConfigState
    )


class EmailConfigState(msgspec.Struct, frozen=True, kw_only=True):
    """What other services use of the key's email settings (`/v2/workspace/emailconfig/*`):
    whether mail is on, each event type's trigger, and the sender's name and reply address. The
    provider's API key stays in identity."""

    useEmailService: bool = False
    fromEmail: str = ""
    fromCompany: str = ""
    triggers: dict[str, bool] = msgspec.field(default_factory=dict)


class WebhookConfigUpdated(Event, tag="identity.config.webhook_updated", frozen=True):
    apiKey: str
    config: WebhookConfigState


class AdvancedWebhookConfigUpdated(
    Event, tag="identity.config.advanced_webhook_updated", frozen=True
):
    apiKey: str
    config: AdvancedWebhookConfigState


class AdvancedWebhookEndpointChanged(
    Event, tag="identity.config.advanced_webhook_endpoint_changed", frozen=True
):
    """An advanced webhook endpoint of the key was created, updated or deleted. It carries
    neither the URL nor the signing secret: consumers read the endpoints over
    rpc.identity.config.get, and drop what they cached for the key on this event."""

    apiKey: str
    endpointId: str
    change: str  # created, updated or deleted


class ActivityConfigUpdated(Event, tag="identity.config.activity_updated", frozen=True):
    apiKey: str
    config: ActivityConfigState


class NotificationConfigUpdated(Event, tag="identity.config.notification_updated", frozen=True):
    apiKey: str
    config: NotificationConfigState


class EmailConfigUpdated(Event, tag="identity.config.email_updated", frozen=True):
    apiKey: str
    config: EmailConfigState


class DomainsUpdated(Event, tag="identity.config.domains_updated", frozen=True):
    apiKey: str
    domains: list[str]  # every allowed domain of the key after the change
    added: list[str] = msgspec.field(default_factory=list)
    removed: list[str] = msgspec.field(default_factory=list)


def deleted_documents(event: Event) -> tuple[str, str, list[str] | None] | None:
    """What a directory deletion took: (API key, organization, document ids), the ids None when
    the whole organization went; None for any other event, or a folder that held no document."""
    if isinstance(event, DocumentDeleted):
        return event.apiKey, event.organizationId, [event.documentId]
    if isinstance(event, FolderDeleted):
        if not event.documentIds:
            return None
        return event.apiKey, event.organizationId, event.documentIds
    if isinstance(event, OrganizationDeleted):
        return event.apiKey, event.organizationId, None
    return None
