"""The request of the reaction endpoints: a reaction to a comment. Their answer is the reaction
annotation as stored inside the comment (`redline.proto.annotation.Reaction`)."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from redline.comments.shared.models import CommentId, Id, Request, User


class Reaction(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    commentId: CommentId
    icon: Annotated[str, Meta(min_length=1, max_length=64)]
    user: User
