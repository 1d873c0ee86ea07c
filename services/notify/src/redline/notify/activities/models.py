"""Requests and answers of /v2/activities/get|add|update|delete, and the activity record itself
(decisions §3)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

Id = Annotated[str, Meta(min_length=1, max_length=256)]
IdList = Annotated[list[Id], Meta(max_length=100)]
ActionType = Annotated[str, Meta(min_length=1, max_length=256)]
Name = Annotated[str, Meta(max_length=512)]
Email = Annotated[str, Meta(max_length=320)]
Url = Annotated[str, Meta(max_length=4096)]
Color = Annotated[str, Meta(max_length=64)]
FieldName = Annotated[str, Meta(min_length=1, max_length=256)]
# Up to the year 9999, in ms.
Ms = Annotated[int, Meta(ge=0, le=253_402_300_799_999)]
PageSize = Annotated[int, Meta(ge=1, le=1000)]
PageToken = Annotated[str, Meta(min_length=1, max_length=1024)]
# The caller's own data: any JSON object, its top level bounded (the body limit bounds the rest).
EntityData = Annotated[dict[str, Any], Meta(max_length=256)]
FeatureType = Literal["comment", "reaction", "custom"]
Order = Literal["asc", "desc"]

MAX_ACTIVITIES = 100
MAX_CHANGES = 100


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Base of request bodies: unknown fields are an INVALID_ARGUMENT."""


class User(Request):
    """A user as the client SDK describes one; only `userId` is required."""

    userId: Id
    organizationId: Id | None = None
    photoUrl: Url | None = None
    initial: Annotated[str, Meta(max_length=8)] | None = None
    clientUserName: Name | None = None
    name: Name | None = None
    clientOrganizationId: Id | None = None
    clientGroupId: Id | None = None
    groupId: Id | None = None
    type: Name | None = None
    email: Email | None = None
    color: Color | None = None
    textColor: Color | None = None
    isAdmin: bool | None = None


class Change(Request):
    """One field's change: its value before and after."""

    from_: Any = msgspec.field(default=None, name="from")
    to: Any = None


Changes = Annotated[dict[FieldName, Change], Meta(max_length=MAX_CHANGES)]


# the record ------------------------------------------------------------------------------------


class ActivityMetadata(msgspec.Struct, kw_only=True):
    apiKey: str
    organizationId: str
    documentId: str | None = None


class Activity(msgspec.Struct, kw_only=True):
    """An activity record, every key always present (null where there is no value). Stored as
    it is returned."""

    id: str
    featureType: FeatureType
    actionType: str
    actionUser: dict[str, Any] | None = None
    timestamp: int
    metadata: ActivityMetadata
    targetEntityId: str | None = None
    targetSubEntityId: str | None = None
    # {field: {"from": ..., "to": ...}}
    changes: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    entityData: dict[str, Any] | None = None
    immutable: bool = False


# get -------------------------------------------------------------------------------------------


class GetActivities(Request):
    """`/v2/activities/get`. An empty list filter counts as absent."""

    organizationId: Id
    documentId: Id | None = None
    targetEntityId: Id | None = None
    featureTypes: Annotated[list[FeatureType], Meta(max_length=100)] | None = None
    actionTypes: Annotated[list[ActionType], Meta(max_length=100)] | None = None
    userId: Id | None = None
    activityIds: IdList | None = None
    order: Order = "desc"
    pageSize: PageSize | None = None
    pageToken: PageToken | None = None


# add -------------------------------------------------------------------------------------------


class NewActivity(Request, kw_only=True):
    """A custom record. `id` makes adding it idempotent; without one an id is generated."""

    id: Id | None = None
    actionType: ActionType
    actionUser: User | None = None
    targetEntityId: Id | None = None
    targetSubEntityId: Id | None = None
    changes: Changes | None = None
    entityData: EntityData | None = None
    immutable: bool = False
    timestamp: Ms | None = None


class AddActivities(Request, kw_only=True):
    organizationId: Id
    documentId: Id | None = None
    activities: Annotated[list[NewActivity], Meta(min_length=1, max_length=MAX_ACTIVITIES)]


# update ----------------------------------------------------------------------------------------

# What an update may change; at least one of them must be sent.
UPDATABLE = (
    "actionType",
    "actionUser",
    "changes",
    "entityData",
    "targetEntityId",
    "targetSubEntityId",
    "immutable",
)


class UpdateActivity(Request):
    """A field left out (or null) keeps its value; `changes` and `entityData` are replaced whole.
    `immutable` may only be turned on."""

    __openapi_any_of__ = tuple((name,) for name in UPDATABLE)

    organizationId: Id
    activityId: Id
    actionType: ActionType | None = None
    actionUser: User | None = None
    changes: Changes | None = None
    entityData: EntityData | None = None
    targetEntityId: Id | None = None
    targetSubEntityId: Id | None = None
    # The schema says `true` only: the service refuses `false` (a record is never unlocked).
    immutable: Annotated[bool, Meta(extra_json_schema={"const": True})] | None = None


# delete ----------------------------------------------------------------------------------------


class DeleteActivities(Request):
    organizationId: Id
    activityIds: Annotated[list[Id], Meta(min_length=1, max_length=MAX_ACTIVITIES)]


class ItemResult(msgspec.Struct):
    """One record's outcome in the delete result map."""

    success: bool
    id: str
    message: str
