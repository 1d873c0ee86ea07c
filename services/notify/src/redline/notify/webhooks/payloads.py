"""What a basic webhook receiver gets for a comment event: the raw and the processed payload,
with data protection applied.

`actionType` uses the hosted product's names so existing receivers keep working; `eventType`
adds the trigger key the event was delivered for.
"""

from __future__ import annotations

from typing import Any

import msgspec

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

# Comment bodies data protection removes; ids and metadata stay.
_PROTECTED = ("commentText", "commentHtml")


# Optional members (targetComment, oldStatus, …) are left out when the event has none.
class RawPayload(msgspec.Struct, omit_defaults=True, kw_only=True):
    webhookId: str
    actionType: str
    eventType: str
    notificationSource: str
    actionUser: JsonObject | None
    metadata: JsonObject
    commentAnnotation: JsonObject
    targetComment: JsonObject | None = None
    oldStatus: JsonObject | None = None
    newStatus: JsonObject | None = None
    oldPriority: JsonObject | None = None
    newPriority: JsonObject | None = None
    assigned: JsonObject | None = None
    reaction: JsonObject | None = None
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
    status: JsonObject | None


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
    comment = _target_comment(event) or _root_comment(event.annotation)
    return ProcessedPayload(
        webhookId=webhook_id,
        actionType=ACTION_TYPES[type(event)],
        eventType=event.trigger,
        notificationSource=NOTIFICATION_SOURCE,
        from_=event.actionUser,
        commentText=None if protect or comment is None else comment.get("commentText"),
        toContactsTagged=tagged_by_event(event),
        documentId=event.documentId,
        targetAnnotationId=event.annotationId,
        targetCommentId=_comment_id(event, comment),
        status=event.annotation.get("status"),
    )


def _target_comment(event: CommentsEvent) -> JsonObject | None:
    return event.comment if isinstance(event, CommentEvent) else None


def _root_comment(annotation: JsonObject) -> JsonObject | None:
    comments = annotation.get("comments")
    if isinstance(comments, list) and comments and isinstance(comments[0], dict):
        root: JsonObject = comments[0]
        return root
    return None


def _comment_id(event: CommentsEvent, comment: JsonObject | None) -> int | None:
    if isinstance(event, CommentEvent):
        return event.commentId
    value = comment.get("commentId") if comment else None
    return value if isinstance(value, int) else None


def _protected_comment(comment: JsonObject) -> JsonObject:
    return {key: value for key, value in comment.items() if key not in _PROTECTED}


def _protected_annotation(annotation: JsonObject) -> JsonObject:
    comments = annotation.get("comments")
    if not isinstance(comments, list):
        return annotation
    return {
        **annotation,
        "comments": [
            _protected_comment(comment) if isinstance(comment, dict) else comment
            for comment in comments
        ],
    }
