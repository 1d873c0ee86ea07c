"""Events of the comments service, one per webhook trigger of the API.

Every change to an annotation emits one, in the same transaction, whether or not webhooks or
activity logs are on for the key: `triggerNotification` and `triggerActivities`, when the request
set them false, tell the notify consumers not to act. `annotation` is the annotation after the
change, exactly as the get endpoint returns it (before it, for a delete); `before` is the
annotation before a change. Both are the stored annotation's Structs (`redline.proto.annotation`),
whose JSON is the stored JSON, so events written before they were typed decode the same.
"""

from __future__ import annotations

from typing import Any

from redline.proto.annotation import Annotation, Comment, Priority, Reaction, Status, User
from redline.proto.events.base import Event

JsonObject = dict[str, Any]


class CommentsEvent(Event, frozen=True, kw_only=True):
    apiKey: str
    organizationId: str
    documentId: str
    annotationId: str
    annotation: Annotation
    # The user whose action this was (the `from` user of the request), when there is one.
    actionUser: JsonObject | None = None
    before: Annotation | None = None
    # The request's flags where the endpoint has them (annotations add); None where it has none,
    # and then the API key's webhook and activity triggers alone decide.
    triggerNotification: bool | None = None
    triggerActivities: bool | None = None
    # Every user the change tags, each tagged organization user group replaced by its members
    # (each a user document with `userId`, and `name`/`email` when known), as identity knew them
    # when the change was written. Set on annotation adds (the root comment's), comment adds and
    # comment updates (the comment's after the change); None where it was not computed.
    taggedUsers: list[JsonObject] | None = None

    @property
    def trigger(self) -> str:
        """The event type without the service (`comment.add`): the name of the webhook and
        activity triggers that decide whether it is delivered and recorded."""
        tag = type(self).__struct_config__.tag
        assert isinstance(tag, str)
        return tag.removeprefix("comments.")


class CommentEvent(CommentsEvent, frozen=True, kw_only=True):
    """A change to one comment of an annotation."""

    commentId: int
    comment: Comment  # the comment after the change (before it, for a delete)


class AnnotationAdded(CommentsEvent, tag="comments.comment_annotation.add", frozen=True):
    pass


class AnnotationDeleted(CommentsEvent, tag="comments.comment_annotation.delete", frozen=True):
    pass


class AnnotationUpdated(
    CommentsEvent, tag="comments.comment_annotation.update", frozen=True, kw_only=True
):
    """A change to an annotation no more specific event describes: its location, target
    element, context or author, or users renamed in it. `changes` names the body keys that
    changed (`updateUsers` for a rename)."""

    changes: list[str]


class StatusChanged(CommentsEvent, tag="comments.comment_annotation.status_change", frozen=True):
    oldStatus: Status | None = None
    newStatus: Status | None = None


class Assigned(CommentsEvent, tag="comments.comment_annotation.assign", frozen=True):
    assigned: User | None = None
    previouslyAssigned: User | None = None


class PriorityChanged(
    CommentsEvent, tag="comments.comment_annotation.priority_change", frozen=True
):
    oldPriority: Priority | None = None
    newPriority: Priority | None = None


class SuggestionAccepted(
    CommentsEvent, tag="comments.comment_annotation.suggestion_accept", frozen=True
):
    reason: str | None = None


class SuggestionRejected(
    CommentsEvent, tag="comments.comment_annotation.suggestion_reject", frozen=True
):
    reason: str | None = None


class CommentAdded(CommentEvent, tag="comments.comment.add", frozen=True):
    pass


class CommentUpdated(CommentEvent, tag="comments.comment.update", frozen=True):
    pass


class CommentDeleted(CommentEvent, tag="comments.comment.delete", frozen=True):
    pass


class ReactionAdded(CommentEvent, tag="comments.comment.reaction_add", frozen=True, kw_only=True):
    reaction: Reaction


class ReactionDeleted(
    CommentEvent, tag="comments.comment.reaction_delete", frozen=True, kw_only=True
):
    reaction: Reaction
