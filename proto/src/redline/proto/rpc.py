"""Request and reply bodies of the internal RPC subjects (see `subjects`)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from redline.proto.events import (
    ActivityConfigState,
    AdvancedWebhookConfigState,
    NotificationConfigState,
    WebhookConfigState,
)


class RpcError(msgspec.Struct, frozen=True):
    """An RPC failure, carried with the envelope's status code so the caller re-raises it."""

    code: str
    message: str
    details: dict[str, Any] | None = None


class VerifyApiKey(msgspec.Struct, tag="apiKey", frozen=True):
    apiKey: str
    token: str


class VerifyWorkspace(msgspec.Struct, tag="workspace", frozen=True):
    workspaceId: str
    token: str


AuthVerifyRequest = VerifyApiKey | VerifyWorkspace


class ResourceGrant(msgspec.Struct, frozen=True):
    """A resource a user token carries: it counts as a grant for requests made with the token."""

    type: str  # organization, folder or document
    id: str
    organizationId: str
    accessRole: str  # viewer or editor


class AuthVerified(msgspec.Struct, frozen=True):
    workspaceId: str
    apiKey: str | None = None
    userId: str | None = None
    # Set for user tokens only.
    grants: tuple[ResourceGrant, ...] = ()
    expiresAt: float | None = None


class AccessCheck(msgspec.Struct, frozen=True):
    """`rpc.identity.access.check`: one user's effective access to one document."""

    apiKey: str
    organizationId: str
    documentId: str
    userId: str
    # Grants of the caller's user token; only those of `organizationId` are considered.
    tokenGrants: tuple[ResourceGrant, ...] = ()


class AccessDecision(msgspec.Struct, frozen=True):
    role: str | None  # viewer, editor, or None: no access
    accessType: str  # public, organizationPrivate or restricted
    via: str  # the rule that decided: document, folder, organization, public or none


class ConfigGetRequest(msgspec.Struct, frozen=True):
    """`rpc.identity.config.get`: the current configuration of one API key."""

    apiKey: str


class ApiKeyConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Every field with its default filled in; the key's workspace, for the caller to check."""

    workspaceId: str
    apiKey: str
    webhook: WebhookConfigState
    advancedWebhook: AdvancedWebhookConfigState
    activity: ActivityConfigState
    notification: NotificationConfigState = msgspec.field(default_factory=NotificationConfigState)
    # When each switch of `webhook` last changed position (epoch ms): "useWebhookService" and
    # "triggers.<event type>". Whether an event is delivered follows the settings in force when
    # it happened.
    webhookSwitchedAt: dict[str, int] = msgspec.field(default_factory=dict)
    # The same for `notification`: "useNotificationService" and "triggers.<group>.<event type>".
    notificationSwitchedAt: dict[str, int] = msgspec.field(default_factory=dict)


class EnsureDocument(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.identity.documents.ensure`: make sure an organization and a document exist before
    data is attached to them. Answers NOT_FOUND for one that is missing when its flag is false."""

    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    organizationId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    documentId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    createOrganization: bool = False
    createDocument: bool = False


class EnsuredDocument(msgspec.Struct, frozen=True):
    organizationId: str
    documentId: str
    # True when this call created it; False when it existed already.
    organizationCreated: bool
    documentCreated: bool


class ListFolderDocuments(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.identity.documents.list_in_folder`: the ids of the documents directly in a folder
    (not in its subfolders), in id order, at most `limit` of them."""

    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    organizationId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    folderId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    limit: Annotated[int, msgspec.Meta(ge=1, le=100_000)] = 10_000


class FolderDocuments(msgspec.Struct, frozen=True):
    documentIds: list[str]


class ReceiverGet(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.workflow.receivers.get`: the webhook receiver of one execution, with its secret, for
    the notify service to sign a delivery. NOT_FOUND when the execution is gone or has none."""

    workspaceId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    executionId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class Receiver(msgspec.Struct, frozen=True):
    url: str
    secret: str
