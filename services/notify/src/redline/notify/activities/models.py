"""Requests and answers of /v2/activities/get|add|update|delete, and the activity record itself."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

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
# Recorded events give comment or reaction; records added through the API may name any of them.
FeatureType = Literal["comment", "reaction", "recorder", "crdt", "custom"]
Template = Annotated[str, Meta(max_length=4096)]
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
    # The hosted reference's display fields: present only on records given them.
    entityTargetData: dict[str, Any] | UnsetType = UNSET
    displayMessageTemplate: str | UnsetType = UNSET
    displayMessageTemplateData: dict[str, Any] | UnsetType = UNSET
    actionIcon: str | UnsetType = UNSET
    isActivityResolverUsed: bool | UnsetType = UNSET


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


class Display(Request, kw_only=True):
    """The display fields of the hosted reference, on added and updated records alike."""

    entityTargetData: EntityData | None = None
    displayMessageTemplate: Template | None = None
    displayMessageTemplateData: EntityData | None = None
    actionIcon: Url | None = None


class NewActivity(Display, kw_only=True):
    """A record added through the API. `id` makes adding it idempotent; without one an id is
    generated. Without `featureType` it is a custom record."""

    __openapi_rule__ = "targetEntityId is due when featureType is custom."

    id: Id | None = None
    featureType: FeatureType | None = None
    actionType: ActionType
    actionUser: User | None = None
    targetEntityId: Id | None = None
    targetSubEntityId: Id | None = None
    changes: Changes | None = None
    entityData: EntityData | None = None
    immutable: bool = False
    timestamp: Ms | None = None
    isActivityResolverUsed: bool | None = None


class AddedActivities(msgspec.Struct, kw_only=True):
    """The answer to add: the reference's `{success, message}`, and the records added (they
    carry the ids the server generated, which the reference's answer lacks)."""

    success: bool
    message: str
    activities: list[Activity]


class AddActivities(Request, kw_only=True):
    organizationId: Id
    documentId: Id | None = None
    activities: Annotated[list[NewActivity], Meta(min_length=1, max_length=MAX_ACTIVITIES)]


# update ----------------------------------------------------------------------------------------

# What an update of one record (`activityId`) may change; at least one of them must be sent.
UPDATABLE = (
    "actionType",
    "actionUser",
    "changes",
    "entityData",
    "targetEntityId",
    "targetSubEntityId",
    "immutable",
)


class ActivityChange(Display, kw_only=True):
    """One record of the hosted form of update: its id and the fields that replace its own."""

    id: Id
    changes: Changes | None = None
    entityData: EntityData | None = None


class UpdateActivity(Request):
    """The hosted form (`activities`, answered per id) or one record (`activityId` with the
    fields at the top level, answered with the record). A field left out (or null) keeps its
    value; `changes` and `entityData` are replaced whole. `immutable` may only be turned on."""

    __openapi_any_of__ = (
        ("activities",),
        *(("activityId", name) for name in UPDATABLE),
    )
    __openapi_exclusive__ = tuple(("activities", name) for name in ("activityId", *UPDATABLE))

    organizationId: Id
    activities: Annotated[list[ActivityChange], Meta(max_length=MAX_ACTIVITIES)] | None = None
    activityId: Id | None = None
    actionType: ActionType | None = None
    actionUser: User | None = None
    changes: Changes | None = None
    entityData: EntityData | None = None
    targetEntityId: Id | None = None
    targetSubEntityId: Id | None = None
    # The schema says `true` only: the service refuses `false` (a record is never unlocked).
    immutable: Annotated[bool, Meta(extra_json_schema={"const": True})] | None = None


class Outcome(msgspec.Struct):
    """One record's outcome in the hosted update's answer, keyed by id."""

    success: bool
    message: str


# delete ----------------------------------------------------------------------------------------


class DeleteActivities(Request):
    """The records named by `activityIds`, of `documentId`, of `targetEntityId`: the filters given
    are ANDed, and at least one is due (an empty list counts as absent)."""

    __openapi_any_of__ = (("activityIds",), ("documentId",), ("targetEntityId",))

    organizationId: Id
    activityIds: Annotated[list[Id], Meta(max_length=MAX_ACTIVITIES)] | None = None
    documentId: Id | None = None
    targetEntityId: Id | None = None


class ItemResult(msgspec.Struct):
    """One record's outcome in the delete result map."""

    success: bool
    id: str
    message: str
