"""Request and response Structs of the endpoints that change annotations: update, delete,
comment update/delete, reactions and suggestion resolution."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from redline.comments.models.annotation import (
    Location,
    Priority,
    Status,
    TaggedUserContact,
    TargetElement,
    User,
)
from redline.comments.models.common import Id, IdList, Metadata, Name, Request, Text

CommentId = Annotated[int, Meta(ge=0, le=2**53)]
MAX_UPDATES = 20
MAX_USER_RENAMES = 100
MAX_COMMENT_IDS = 1000
MAX_TAGGED = 100


class UpdatedData(Request):
    location: Location | None = None
    targetElement: TargetElement | None = None
    from_: User | None = msgspec.field(default=None, name="from")
    status: Status | None = None
    assignedTo: User | None = None
    context: Metadata | None = None
    priority: Priority | None = None


class UserRef(Request):
    userId: Id
    name: Name | None = None
    email: Annotated[str, Meta(max_length=320)] | None = None


class UserRename(Request):
    oldUser: UserRef
    newUser: UserRef


class UpdateAnnotations(Request):
    __openapi_any_of__ = (("updatedData",), ("updateUsers",))

    organizationId: Id
    documentId: Id
    locationIds: IdList | None = None
    userIds: IdList | None = None
    annotationIds: IdList | None = None
    updatedData: Annotated[list[UpdatedData], Meta(max_length=MAX_UPDATES)] | None = None
    updateUsers: Annotated[list[UserRename], Meta(max_length=MAX_USER_RENAMES)] | None = None


class DeleteAnnotations(Request):
    organizationId: Id
    documentId: Id
    annotationIds: IdList | None = None
    locationIds: IdList | None = None
    userIds: IdList | None = None
    agentId: Id | None = None
    agentSuggestions: bool | None = None


class ItemResult(msgspec.Struct):
    """One annotation's outcome in a keyed result map."""

    success: bool
    id: str
    message: str


class CommentResult(msgspec.Struct):
    """One comment's outcome in a keyed result map."""

    success: bool
    id: int
    message: str


class DeleteComments(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    commentIds: Annotated[list[CommentId], Meta(max_length=MAX_COMMENT_IDS)] | None = None


class UpdateComment(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    commentId: CommentId
    commentText: Text | None = None
    commentHtml: Text | None = None
    taggedUserContacts: Annotated[list[TaggedUserContact], Meta(max_length=MAX_TAGGED)] | None = (
        None
    )


class Reaction(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    commentId: CommentId
    icon: Annotated[str, Meta(min_length=1, max_length=64)]
    user: User


class ResolveSuggestion(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    action: Literal["accept", "reject"]
    user: User
    reason: Annotated[str, Meta(max_length=2000)] | None = None


# The reaction annotation and the annotation as returned; their shape is the stored body's.
Document = dict[str, Any]
