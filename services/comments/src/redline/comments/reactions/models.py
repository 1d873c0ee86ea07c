"""The request and answer of the reaction endpoints: a reaction to a comment, and the reaction
annotation as stored inside the comment."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from msgspec import Meta

from redline.comments.shared.models import CommentId, Id, Request, User


class Reaction(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    commentId: CommentId
    icon: Annotated[str, Meta(min_length=1, max_length=64)]
    user: User


# `from` is a Python keyword, so a reacting user's entry is declared this way.
ReactionUser = TypedDict("ReactionUser", {"lastUpdated": int, "from": dict[str, Any]})


class ReactionPlace(TypedDict, total=False):
    """Where the reaction is: copied from its annotation, when it has them."""

    locationId: int
    location: dict[str, Any]
    context: dict[str, Any]


class ReactionAnnotation(ReactionPlace):
    """One icon's reaction to a comment, with every user who reacted with it."""

    annotationId: str
    type: Literal["reaction"]
    icon: str
    commentAnnotationId: str
    lastUpdated: int
    fromUsers: list[ReactionUser]
