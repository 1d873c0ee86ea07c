"""Requests and answers of the endpoints on an annotation's comments (document 2): add, get,
update and delete."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from redline.comments.shared.models import (
    MAX_ATTACHMENTS,
    MAX_COMMENTS,
    MAX_CONTACTS,
    Attachment,
    CommentId,
    Id,
    IdList,
    Metadata,
    ReplyComment,
    Request,
    TaggedUserContact,
    Text,
    User,
)

MAX_COMMENT_IDS = 1000


class AddComments(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    commentData: Annotated[list[ReplyComment], Meta(min_length=1, max_length=MAX_COMMENTS)]
    createOrganization: bool = False
    createDocument: bool = False
    verifyUserPermissions: bool = False


class GetComments(Request, kw_only=True):
    """`/v2/commentannotations/comments/get`, also under `/v1/`."""

    organizationId: Id
    documentId: Id
    annotationId: Id
    userIds: IdList | None = None
    commentIds: Annotated[list[CommentId], Meta(max_length=MAX_COMMENT_IDS)] | None = None


class CommentOut(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A comment as comments/get answers it: a subset of the stored comment."""

    commentId: int
    commentText: str | None = None
    commentHtml: str | None = None
    from_: dict[str, Any] | None = msgspec.field(default=None, name="from")
    lastUpdated: str | None = None
    status: str | None = None
    type: str | None = None


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


class UpdateComment(Request):
    """Either the hosted form (`commentIds` + `updatedData`, answered per id) or Redline's first
    form (one `commentId` with the changes at the top level, answered as one result)."""

    __openapi_any_of__ = (("commentId",), ("commentIds",))
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
    updatedData: CommentChanges | None = None
    commentText: Text | None = None
    commentHtml: Text | None = None
    taggedUserContacts: TaggedContacts | None = None


class DeleteComments(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    commentIds: Annotated[list[CommentId], Meta(max_length=MAX_COMMENT_IDS)] | None = None


class CommentResult(msgspec.Struct):
    """One comment's outcome in a keyed result map."""

    success: bool
    id: int
    message: str
