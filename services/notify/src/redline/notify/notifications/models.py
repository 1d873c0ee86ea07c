"""Requests and answers of /v2/notifications/add|get|update|delete and config/get|set, and the
notification record itself, in the shapes of the hosted API reference."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from redline.notify.activities.models import EntityData, Id, Order, PageSize, PageToken, User

# The hosted reference: a notification id of letters, digits, `_` and `-`.
NotificationId = Annotated[str, Meta(min_length=1, max_length=256, pattern=r"^[A-Za-z0-9_-]+$")]
Template = Annotated[str, Meta(max_length=4096)]
Source = Annotated[str, Meta(min_length=1, max_length=64)]
# What a user receives on one channel: everything, what involves them, or nothing.
Preference = Literal["ALL", "MINE", "NONE"]

MAX_USERS = 100
MAX_IDS = 30  # the reference's limit on notificationIds and documentIds
MAX_UPDATES = 100
DEFAULT_PAGE_SIZE = 1000  # the reference's default pageSize


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Base of request bodies: unknown fields are an INVALID_ARGUMENT."""


# the record ------------------------------------------------------------------------------------


class NotificationMetadata(msgspec.Struct, kw_only=True):
    apiKey: str
    organizationId: str
    documentId: str | None = None


class Notification(msgspec.Struct, kw_only=True):
    """A notification as get returns it; stored as it is returned. `isRead` is added when the
    listing is one user's feed."""

    id: str
    notificationSource: str
    notificationSourceData: dict[str, Any] | None = None
    actionUser: dict[str, Any] | None = None
    displayHeadlineMessageTemplate: str | None = None
    displayHeadlineMessageTemplateData: dict[str, Any] | None = None
    displayBodyMessage: str | None = None
    metadata: NotificationMetadata
    # Named recipients, keyed by user id.
    notifyUsers: dict[str, bool] = msgspec.field(default_factory=dict)
    notifyUsersByUserId: dict[str, bool] = msgspec.field(default_factory=dict)
    timestamp: int
    # Present only on notifications given them.
    actionType: str | UnsetType = UNSET
    notifyAll: bool | UnsetType = UNSET
    displayBodyMessageTemplate: str | UnsetType = UNSET
    displayBodyMessageTemplateData: dict[str, Any] | UnsetType = UNSET
    location: dict[str, Any] | UnsetType = UNSET
    context: dict[str, Any] | UnsetType = UNSET
    isNotificationResolverUsed: bool | UnsetType = UNSET
    isRead: bool | UnsetType = UNSET


# add -------------------------------------------------------------------------------------------


class Context(Request):
    """Context for filtering, as the reference gives it: `access` maps field names to values."""

    access: Annotated[dict[str, str | int | float], Meta(max_length=64)]


class Content(Request, kw_only=True):
    """The display fields, on added and updated notifications alike."""

    actionUser: User | None = None
    displayHeadlineMessageTemplate: Template | None = None
    displayHeadlineMessageTemplateData: EntityData | None = None
    displayBodyMessage: Template | None = None
    displayBodyMessageTemplate: Template | None = None
    displayBodyMessageTemplateData: EntityData | None = None
    notificationSourceData: EntityData | None = None
    location: EntityData | None = None
    # Accepted as the official SDK sends it; the record's metadata is always Redline's own.
    metadata: EntityData | None = None
    context: Context | None = None


class AddNotification(Content, kw_only=True):
    """`/v2/notifications/add`: one notification for the users named (and, with `notifyAll`, the
    default, for every user of the organization)."""

    __openapi_rule__ = (
        "displayHeadlineMessageTemplate and displayBodyMessage are due unless "
        "isNotificationResolverUsed is true; notifyUsers is due when notifyAll is false."
    )

    organizationId: Id
    documentId: Id
    createOrganization: bool = False
    createDocument: bool = False
    actionUser: User
    verifyUserPermissions: bool = False
    notificationId: NotificationId | None = None
    isNotificationResolverUsed: bool | None = None
    notifyUsers: Annotated[list[User], Meta(max_length=MAX_USERS)] | None = None
    notifyAll: bool = True
    notificationSource: Source | None = None
    isCrossOrganizationEnabled: bool | None = None


class Added(msgspec.Struct):
    success: bool
    message: str
    notificationId: str


# get -------------------------------------------------------------------------------------------


class GetNotifications(Request):
    """`/v2/notifications/get`: a user's feed (`userId`) or a document's notifications; the
    filters given are ANDed."""

    __openapi_any_of__ = (("documentId",), ("userId",))

    organizationId: Id
    documentId: Id | None = None
    locationId: Id | None = None
    userId: Id | None = None
    notificationIds: Annotated[list[Id], Meta(max_length=MAX_IDS)] | None = None
    pageSize: PageSize | None = None
    pageToken: PageToken | None = None
    order: Order = "desc"


# update ----------------------------------------------------------------------------------------


class NotificationChange(Content, kw_only=True):
    """One notification of update: the fields that replace its own, and whose read state
    changes."""

    id: Id
    notifyUsers: Annotated[list[User], Meta(max_length=MAX_USERS)] | None = None
    readByUserIds: Annotated[list[Id], Meta(max_length=MAX_USERS)] | None = None
    # Redline's counterpart of readByUserIds: these users see the notification as unread again.
    unreadByUserIds: Annotated[list[Id], Meta(max_length=MAX_USERS)] | None = None
    persistReadForUsers: bool | None = None


class UpdateNotifications(Request, kw_only=True):
    """`/v2/notifications/update`: each notification named, when it matches the filters given."""

    organizationId: Id
    documentId: Id | None = None
    locationId: Id | None = None
    userId: Id | None = None
    verifyUserPermissions: bool | None = None
    notifications: Annotated[list[NotificationChange], Meta(min_length=1, max_length=MAX_UPDATES)]


class Outcome(msgspec.Struct):
    """One notification's outcome in the update and delete answers, keyed by id."""

    success: bool
    message: str


# delete ----------------------------------------------------------------------------------------


class DeleteNotifications(Request):
    """`/v2/notifications/delete`: the filters given are ANDed; at least one besides the
    organization is due. With `userId`, the notifications leave that user's feed only."""

    __openapi_any_of__ = (("documentId",), ("locationId",), ("userId",), ("notificationIds",))

    organizationId: Id
    documentId: Id | None = None
    locationId: Id | None = None
    userId: Id | None = None
    notificationIds: Annotated[list[Id], Meta(max_length=MAX_UPDATES)] | None = None


# per-user config -------------------------------------------------------------------------------


class ChannelConfig(Request):
    inbox: Preference | None = None
    email: Preference | None = None
    slack: Preference | None = None


class GetUserConfig(Request):
    """`/v2/notifications/config/get`: the user's config per document, or at the organization
    level (`getOrganizationConfig`)."""

    __openapi_any_of__ = (("documentIds",), ("getOrganizationConfig",))

    organizationId: Id
    userId: Id | None = None
    documentIds: Annotated[list[Id], Meta(max_length=MAX_IDS)] | None = None
    getOrganizationConfig: bool | None = None


class SetUserConfig(Request, kw_only=True):
    """`/v2/notifications/config/set`: the channels sent replace the users' own; without
    `documentIds` the organization-level config (the default for every document) is set."""

    organizationId: Id
    userIds: Annotated[list[Id], Meta(min_length=1, max_length=MAX_USERS)]
    documentIds: Annotated[list[Id], Meta(max_length=MAX_IDS)] | None = None
    config: ChannelConfig


class EffectiveConfig(msgspec.Struct):
    """A user's channels: the document's own over the organization's over the defaults."""

    inbox: str = "ALL"
    email: str = "ALL"
    slack: str | UnsetType = UNSET


class ConfigMetadata(msgspec.Struct, kw_only=True):
    organizationId: str
    apiKey: str
    userId: str
    documentId: str | UnsetType = UNSET


class UserConfig(msgspec.Struct):
    config: EffectiveConfig
    metadata: ConfigMetadata


class ConfigSet(msgspec.Struct, kw_only=True):
    success: bool
    userId: str
    documentId: str | UnsetType = UNSET
    message: str
