"""Requests and answers of the endpoints on an annotation's comments: add, get,
update and delete."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from redline.comments.shared.models import (
    MAX_ATTACHMENTS,
    MAX_COMMENTS,
    MAX_CONTACTS,
    Actions,
    Attachment,
    CommentId,
    Id,
    IdList,
    Metadata,
    NewDocument,
    NewOrganization,
    Progress,
    ReplyComment,
    Request,
    TaggedUserContact,
    Text,
    User,
)

MAX_COMMENT_IDS = 1000


NewComments = Annotated[list[ReplyComment], Meta(min_length=1, max_length=MAX_COMMENTS)]


class AddComments(Request):
    """The comments come in `commentData` (the reference) or `comments` (the official SDK's other
    name for it): exactly one of the two."""

    __openapi_any_of__ = (("commentData",), ("comments",))
    __openapi_exclusive__ = (("commentData", "comments"),)

    organizationId: Id
    documentId: Id
    annotationId: Id
    commentData: NewComments | None = None
    comments: NewComments | None = None
    createOrganization: bool | NewOrganization = False
    createDocument: bool | NewDocument = False
    verifyUserPermissions: bool = False


class GetComments(Request, kw_only=True):
    """`/v2/commentannotations/comments/get`, also under `/v1/`."""

    organizationId: Id
    documentId: Id
    annotationId: Id
    userIds: IdList | None = None
    commentIds: Annotated[list[CommentId], Meta(max_length=MAX_COMMENT_IDS)] | None = None


class CommentOut(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A comment as comments/get answers it: the stored comment's fields the contract and the
    hosted reference list, those it has."""

    commentId: int
    commentText: str | None = None
    commentHtml: str | None = None
    from_: dict[str, Any] | None = msgspec.field(default=None, name="from")
    lastUpdated: str | None = None
    status: str | None = None
    type: str | None = None
    isDraft: bool | None = None
    isCommentTextAvailable: bool | None = None
    createdAt: int | None = None
    sourceType: str | None = None
    to: list[Any] | None = None
    toOrganizationUserGroup: list[Any] | None = None
    taggedUserContacts: list[Any] | None = None
    attachments: list[Any] | None = None
    recorders: list[Any] | None = None
    customList: list[Any] | None = None
    reactionAnnotationIds: list[str] | None = None
    reactionAnnotations: list[Any] | None = None
    context: dict[str, Any] | None = None
    agent: dict[str, Any] | None = None


TaggedContacts = Annotated[list[TaggedUserContact], Meta(max_length=MAX_CONTACTS)]


class CommentChanges(Request):
    """`updatedData` of a comment update: the comment fields the hosted reference lets change.
    Each one given replaces the comment's field of that name."""

    commentText: Text | None = None
    commentHtml: Text | None = None
    from_: User | None = msgspec.field(default=None, name="from")
    taggedUserContacts: TaggedContacts | None = None
    context: Metadata | None = None
    attachments: Annotated[list[Attachment], Meta(max_length=MAX_ATTACHMENTS)] | None = None
    isCommentResolverUsed: bool | None = None
    isCommentTextAvailable: bool | None = None
    # Whole-object replace, as the official SDK documents: a new `progress` drops the old steps.
    progress: Progress | None = None
    actions: Actions | None = None


class UpdateComment(Request):
    """Either the hosted form (`updatedData`, for the comments `commentIds` and `userIds` select,
    every comment of the thread when neither is given; answered per id) or Redline's first form
    (one `commentId` with the changes at the top level, answered as one result)."""

    __openapi_any_of__ = (("commentId",), ("commentIds",), ("updatedData",))
    __openapi_exclusive__ = (
        ("commentId", "commentIds"),
        ("updatedData", "commentText"),
        ("updatedData", "commentHtml"),
        ("updatedData", "taggedUserContacts"),
    )

    organizationId: Id
    documentId: Id
    annotationId: Id
    commentId: CommentId | None = None
    commentIds: Annotated[list[CommentId], Meta(max_length=MAX_COMMENT_IDS)] | None = None
    userIds: IdList | None = None
    updatedData: CommentChanges | None = None
    commentText: Text | None = None
    commentHtml: Text | None = None
    taggedUserContacts: TaggedContacts | None = None
    # Whether the change is announced to webhooks (None: the key's triggers alone decide).
    triggerNotification: bool | None = None


class DeleteComments(Request):
    """`commentIds` and `userIds` (the authors) narrow the delete together; with neither, every
    comment of the thread goes."""

    organizationId: Id
    documentId: Id
    annotationId: Id
    commentIds: Annotated[list[CommentId], Meta(max_length=MAX_COMMENT_IDS)] | None = None
    userIds: IdList | None = None


class CommentResult(msgspec.Struct):
    """One comment's outcome in a keyed result map."""

    success: bool
    id: int
    message: str
