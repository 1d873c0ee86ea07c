"""Requests and answers of the endpoints on an annotation's comments (document 2): add, get,
update and delete."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from redline.comments.shared.models import (
    MAX_COMMENTS,
    MAX_CONTACTS,
    CommentId,
    Id,
    IdList,
    ReplyComment,
    Request,
    TaggedUserContact,
    Text,
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
    """`/v1/commentannotations/comments/get`."""

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


class UpdateComment(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    commentId: CommentId
    commentText: Text | None = None
    commentHtml: Text | None = None
    taggedUserContacts: Annotated[list[TaggedUserContact], Meta(max_length=MAX_CONTACTS)] | None = (
        None
    )


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
