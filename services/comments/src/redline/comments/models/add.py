"""Request and response Structs of /v2/commentannotations/add and
/v2/commentannotations/comments/add (document 2, endpoints 1 and 4)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from redline.comments.models.annotation import (
    MAX_ATTACHMENTS,
    MAX_CONTACTS,
    Agent,
    Attachment,
    Email,
    Location,
    Priority,
    ShortText,
    Status,
    TaggedUserContact,
    TargetElement,
    User,
    Visibility,
)
from redline.comments.models.common import (
    AnnotationType,
    Id,
    Metadata,
    Ms,
    Name,
    Request,
    Text,
)

CommentId = Annotated[int, Meta(ge=0, le=2**53)]
MAX_ANNOTATIONS = 100
MAX_COMMENTS = 100


class _CommentFields(Request):
    from_: User = msgspec.field(name="from")
    commentId: CommentId | None = None
    commentText: Text | None = None
    commentHtml: Text | None = None
    context: Metadata | None = None
    isCommentResolverUsed: bool | None = None
    isCommentTextAvailable: bool | None = None
    createdAt: Ms | None = None
    lastUpdated: Ms | None = None
    attachments: Annotated[list[Attachment], Meta(max_length=MAX_ATTACHMENTS)] | None = None
    agent: Agent | None = None


class NewComment(_CommentFields):
    """A comment of the annotation add endpoint."""

    taggedUserContacts: Annotated[list[TaggedUserContact], Meta(max_length=MAX_CONTACTS)] | None = (
        None
    )
    triggerNotification: bool = False
    triggerActivities: bool = False


class FullContact(Request):
    userId: Id
    name: Name
    email: Email


class ReplyTaggedUserContact(Request):
    """A tagged user as the comment add endpoint takes it: every field required."""

    text: ShortText
    userId: Id
    contact: FullContact


class ReplyComment(_CommentFields):
    """A comment of the comment add endpoint (no notification flags there)."""

    taggedUserContacts: (
        Annotated[list[ReplyTaggedUserContact], Meta(max_length=MAX_CONTACTS)] | None
    ) = None


class NewAnnotation(Request):
    commentData: Annotated[list[NewComment], Meta(min_length=1, max_length=MAX_COMMENTS)]
    annotationId: Id | None = None
    location: Location | None = None
    targetElement: TargetElement | None = None
    status: Status | None = None
    assignedTo: User | None = None
    context: Metadata | None = None
    createdAt: Ms | None = None
    lastUpdated: Ms | None = None
    priority: Priority | None = None
    type: AnnotationType | None = None
    commentType: Literal["manual", "chart", "suggestion"] | None = None
    visibility: Visibility | None = None


class AddAnnotations(Request):
    organizationId: Id
    documentId: Id
    commentAnnotations: Annotated[
        list[NewAnnotation], Meta(min_length=1, max_length=MAX_ANNOTATIONS)
    ]
    createOrganization: bool = False
    createDocument: bool = False
    verifyUserPermissions: bool = False


class AddComments(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    commentData: Annotated[list[ReplyComment], Meta(min_length=1, max_length=MAX_COMMENTS)]
    createOrganization: bool = False
    createDocument: bool = False
    verifyUserPermissions: bool = False


class AddedAnnotation(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One entry of the add endpoint's result map (and of `details` when some failed)."""

    success: bool
    annotationId: str
    commentIds: list[int] = msgspec.field(default_factory=list)
    message: str
    # Set on failed entries: what kind of failure, and the offending fields.
    code: str | None = None
    issues: list[dict[str, str]] | None = None


AddedAnnotations = dict[str, AddedAnnotation]
