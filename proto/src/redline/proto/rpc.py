"""Request and reply bodies of the internal RPC subjects (see `subjects`)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from redline.proto.events import (
    ActivityConfigState,
    AdvancedWebhookConfigState,
    EmailConfigState,
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


class AdvancedEndpointState(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    url: str
    # None: every event type (every channel).
    filterTypes: list[str] | None = None
    channels: list[str] | None = None
    disabled: bool = False
    secret: str  # whsec_ + base64: the Standard Webhooks signing secret
    createdAt: int  # ms; events that happened before it are not the endpoint's
    # When `disabled` last changed (ms); its creation time until it first does.
    switchedAt: int
    # Deliveries per second to the endpoint at most; None: no limit of its own.
    rateLimit: int | None = None


class ApiKeyConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Every setting of an API key that notify acts on, with its defaults filled in: its basic
    and advanced webhooks (endpoints and their signing secrets included: they travel only here,
    never on the stream), activity logs, in-app notifications and mail; the key's workspace, for
    the caller to check."""

    workspaceId: str
    apiKey: str
    webhook: WebhookConfigState
    advancedWebhook: AdvancedWebhookConfigState
    activity: ActivityConfigState
    notification: NotificationConfigState = msgspec.field(default_factory=NotificationConfigState)
    email: EmailConfigState = msgspec.field(default_factory=EmailConfigState)
    # The advanced webhook endpoints, oldest first.
    advancedEndpoints: list[AdvancedEndpointState] = msgspec.field(default_factory=list)
    # When each on/off switch of the settings above last changed position (epoch ms), by name:
    # `<section>.<switch>`, the section named as the field above and the switch by its path in
    # it: `webhook.useWebhookService`, `webhook.triggers.<event type>`,
    # `advancedWebhook.isEnabled`, `activity.isEnabled`, `activity.triggers.<event type>`,
    # `notification.useNotificationService`, `notification.triggers.<group>.<event type>`,
    # `email.useEmailService`, `email.triggers.<event type>`. A switch never moved is absent.
    switchedAt: dict[str, int] = msgspec.field(default_factory=dict)


class EnsureDocument(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.identity.documents.ensure`: make sure an organization and a document exist before
    data is attached to them. Answers NOT_FOUND for one that is missing when its flag is false."""

    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    organizationId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    documentId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    createOrganization: bool = False
    createDocument: bool = False
    # The names an organization or document created by this call gets.
    organizationName: Annotated[str, msgspec.Meta(max_length=256)] = ""
    documentName: Annotated[str, msgspec.Meta(max_length=256)] = ""


class EnsuredDocument(msgspec.Struct, frozen=True):
    organizationId: str
    documentId: str
    # True when this call created it; False when it existed already.
    organizationCreated: bool
    documentCreated: bool


class DisableStateQuery(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.identity.disablestate.get`: whether an organization, or a document in it, is
    disabled (read-only). A missing organization or document is not disabled."""

    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    organizationId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    documentId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)] | None = None


class DisableState(msgspec.Struct, frozen=True):
    organizationDisabled: bool
    documentDisabled: bool = False


class ListFolderDocuments(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.identity.documents.list_in_folder`: the ids of the documents directly in a folder
    (not in its subfolders), in id order, at most `limit` of them."""

    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    organizationId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    folderId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    limit: Annotated[int, msgspec.Meta(ge=1, le=100_000)] = 10_000


class FolderDocuments(msgspec.Struct, frozen=True):
    documentIds: list[str]


class UserGroupMembersGet(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.identity.usergroups.members`: who the organization user groups name now (their
    members who are members of the organization), to expand a group tagged in a comment."""

    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    organizationId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    groupIds: Annotated[
        list[Annotated[str, msgspec.Meta(min_length=1, max_length=256)]],
        msgspec.Meta(min_length=1, max_length=1000),
    ]


class GroupMember(msgspec.Struct, frozen=True, omit_defaults=True):
    """A member as a tagged user: name and email when the user's profile has them."""

    userId: str
    name: str | None = None
    email: str | None = None


class UserGroupMembers(msgspec.Struct, frozen=True):
    """Group id -> its members in user id order; a group that does not exist, or names no one
    now, is absent."""

    groups: dict[str, list[GroupMember]]


class UserContactsGet(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.identity.users.contacts`: the name and email address of the key's users, as their
    profiles hold them now (notification mail reads the recipient's address here)."""

    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    userIds: Annotated[
        list[Annotated[str, msgspec.Meta(min_length=1, max_length=256)]],
        msgspec.Meta(min_length=1, max_length=1000),
    ]


class UserContacts(msgspec.Struct, frozen=True):
    """User id -> the user's contact (name and email when the profile has them); a user the key
    does not know is absent."""

    users: dict[str, GroupMember]


class ReceiverGet(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.workflow.receivers.get`: the webhook receiver of one execution, with its secret, for
    the notify service to sign a delivery. NOT_FOUND when the execution is gone or has none."""

    workspaceId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    executionId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class Receiver(msgspec.Struct, frozen=True):
    url: str
    secret: str


class PersonalDataExport(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`rpc.<service>.personal_data.export`: one page of what a service holds about one user of
    one API key, per kind of data. `offsets` names the kinds to read and where each resumes;
    None on the first page: every kind the service has, from the start."""

    workspaceId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    apiKey: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    userId: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    # Only these organizations' data; None: every organization of the API key.
    organizationIds: list[str] | None = None
    offsets: dict[str, int] | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 100


class PersonalDataPage(msgspec.Struct, frozen=True):
    items: list[dict[str, Any]]
    # Where the next page of this kind starts; None when this was its last.
    nextOffset: int | None = None


class PersonalDataExported(msgspec.Struct, frozen=True):
    kinds: dict[str, PersonalDataPage]
