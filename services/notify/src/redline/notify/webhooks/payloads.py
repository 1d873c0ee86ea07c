"""What a basic webhook receiver gets for a comment event: the raw and the processed payload,
with data protection applied.

`actionType` uses the hosted product's names so existing receivers keep working; `eventType`
adds the trigger key the event was delivered for.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from redline.proto.annotation import Annotation, Comment, Priority, Reaction, Status, User
from redline.proto.events import (
    AnnotationAdded,
    AnnotationDeleted,
    AnnotationUpdated,
    Assigned,
    CommentAdded,
    CommentDeleted,
    CommentEvent,
    CommentsEvent,
    CommentUpdated,
    PriorityChanged,
    ReactionAdded,
    ReactionDeleted,
    StatusChanged,
    SuggestionAccepted,
    SuggestionRejected,
)
from redline.proto.tagging import tagged_by_event

JsonObject = dict[str, Any]

NOTIFICATION_SOURCE = "comment"
# Every change here arrives through the REST API.
PLATFORM = "api"

ACTION_TYPES: dict[type[CommentsEvent], str] = {
    AnnotationAdded: "newlyAdded",
    AnnotationUpdated: "updated",
    AnnotationDeleted: "deleted",
    StatusChanged: "statusChanged",
    Assigned: "assigned",
    PriorityChanged: "priorityChanged",
    SuggestionAccepted: "accepted",
    SuggestionRejected: "rejected",
    CommentAdded: "added",
    CommentUpdated: "updated",
    CommentDeleted: "deleted",
    ReactionAdded: "reactionAdded",
    ReactionDeleted: "reactionDeleted",
}


# Optional members (targetComment, oldStatus, …) are left out when the event has none.
class RawPayload(msgspec.Struct, omit_defaults=True, kw_only=True):
    webhookId: str
    actionType: str
    eventType: str
    notificationSource: str
    actionUser: JsonObject | None
    metadata: JsonObject
    commentAnnotation: Annotation
    targetComment: Comment | None = None
    oldStatus: Status | None = None
    newStatus: Status | None = None
    oldPriority: Priority | None = None
    newPriority: Priority | None = None
    assigned: User | None = None
    reaction: Reaction | None = None
    platform: str


class ProcessedPayload(msgspec.Struct, omit_defaults=True, kw_only=True):
    webhookId: str
    actionType: str
    eventType: str
    notificationSource: str
    # `from` is a keyword in Python; renamed on the wire.
    from_: JsonObject | None = msgspec.field(name="from")
    commentText: str | None = None
    toContactsTagged: list[JsonObject]
    documentId: str
    targetAnnotationId: str
    targetCommentId: int | None
    status: Status | None


def raw_payload(webhook_id: str, event: CommentsEvent, protect: bool) -> RawPayload:
    annotation = _protected_annotation(event.annotation) if protect else event.annotation
    target = _target_comment(event)
    payload = RawPayload(
        webhookId=webhook_id,
        actionType=ACTION_TYPES[type(event)],
        eventType=event.trigger,
        notificationSource=NOTIFICATION_SOURCE,
        platform=PLATFORM,
        actionUser=event.actionUser,
        metadata={
            "apiKey": event.apiKey,
            "organizationId": event.organizationId,
            "documentId": event.documentId,
        },
        commentAnnotation=annotation,
        targetComment=_protected_comment(target) if protect and target else target,
    )
    if isinstance(event, StatusChanged):
        payload.oldStatus, payload.newStatus = event.oldStatus, event.newStatus
    elif isinstance(event, PriorityChanged):
        payload.oldPriority, payload.newPriority = event.oldPriority, event.newPriority
    elif isinstance(event, Assigned):
        payload.assigned = event.assigned
    elif isinstance(event, ReactionAdded | ReactionDeleted):
        payload.reaction = event.reaction
    return payload


def processed_payload(webhook_id: str, event: CommentsEvent, protect: bool) -> ProcessedPayload:
    comment = _target_comment(event) or event.annotation.root
    status = event.annotation.status
    return ProcessedPayload(
        webhookId=webhook_id,
        actionType=ACTION_TYPES[type(event)],
        eventType=event.trigger,
        notificationSource=NOTIFICATION_SOURCE,
        from_=event.actionUser,
        commentText=None if protect or comment is None else comment.text,
        toContactsTagged=tagged_by_event(event),
        documentId=event.documentId,
        targetAnnotationId=event.annotationId,
        targetCommentId=_comment_id(event, comment),
        status=None if status is UNSET else status,
    )


def _target_comment(event: CommentsEvent) -> Comment | None:
    return event.comment if isinstance(event, CommentEvent) else None


def _comment_id(event: CommentsEvent, comment: Comment | None) -> int | None:
    if isinstance(event, CommentEvent):
        return event.commentId
    return None if comment is None else comment.commentId


def _protected_comment(comment: Comment) -> Comment:
    """The comment without its bodies (text and html); ids and metadata stay."""
    return msgspec.structs.replace(comment, commentText=UNSET, commentHtml=UNSET)


def _protected_annotation(annotation: Annotation) -> Annotation:
    return msgspec.structs.replace(
        annotation, comments=[_protected_comment(c) for c in annotation.comments]
    )
