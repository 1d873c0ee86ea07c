"""From a comments event to the notifications it puts in users' feeds. No I/O.

Who is notified, and why (the reason is part of the notification's id, `ntf_<event id>_<reason>`,
so a redelivered event maps to the same notifications):
- mention: users the change tags (an added annotation's comments, an added comment, users newly
  tagged by a comment's edit);
- assign: the user an annotation is assigned to (on assignment, or at creation);
- reply: the thread's author and earlier commenters, when a comment is added to it;
- status: the same participants and the assignee, when the thread's status changes.
Mentions, assignments and replies directly involve the user; a status change does not, and so
reaches only users whose inbox preference is ALL. The acting user is never notified about their
own action, and each user gets at most one notification per event (the first reason above).
"""

from __future__ import annotations

from typing import Any, Literal

from redline.notify.gate import let_through
from redline.notify.notifications.models import Notification, NotificationMetadata
from redline.proto.annotation import Annotation, stored_json
from redline.proto.events import (
    AnnotationAdded,
    Assigned,
    CommentAdded,
    CommentEvent,
    CommentsEvent,
    CommentUpdated,
    StatusChanged,
)
from redline.proto.rpc import ApiKeyConfig
from redline.proto.tagging import tagged_by, tagged_by_event

ID_PREFIX = "ntf_"
SOURCE = "comment"

Reason = Literal["mention", "assign", "reply", "status"]
# In order of precedence: a user named for several reasons is notified for the first.
REASONS: tuple[Reason, ...] = ("mention", "assign", "reply", "status")
DIRECT: frozenset[Reason] = frozenset({"mention", "assign", "reply"})

HEADLINES: dict[Reason, str] = {
    "mention": "{actionUser} mentioned you in a comment",
    "assign": "{actionUser} assigned a comment to you",
    "reply": "{actionUser} replied in a comment thread you are part of",
    "status": "{actionUser} changed the status of a comment thread you are part of",
}

JsonObject = dict[str, Any]


def should_notify(config: ApiKeyConfig, event: CommentsEvent) -> bool:
    """In-app notifications on for the event's key and the action's comment trigger on, both as
    they were when the event happened, and the request did not turn notifications off (None: no
    such flag)."""
    settings = config.notification
    triggers = settings.notificationServiceConfig.triggers.get("comment", {})
    return event.triggerNotification is not False and let_through(
        config,
        event,
        ("notification.useNotificationService", settings.useNotificationService),
        (f"notification.triggers.comment.{event.trigger}", triggers.get(event.trigger) is True),
    )


def _user_id(user: JsonObject | None) -> str | None:
    """The acting user's id (the event keeps that user as the request gave it)."""
    user_id = None if user is None else user.get("userId")
    return user_id if isinstance(user_id, str) and user_id else None


def tagged_user_ids(event: CommentsEvent) -> list[str]:
    """Every user the change tags (`redline.proto.tagging`)."""
    return [user["userId"] for user in tagged_by_event(event)]


def _newly_tagged(event: CommentUpdated) -> list[str]:
    """Users the edit tags that the comment did not tag before it."""
    before = None if event.before is None else event.before.comment(event.commentId)
    earlier = {user["userId"] for user in tagged_by(before)}
    return [u for u in tagged_user_ids(event) if u not in earlier]


def thread_participants(annotation: Annotation, except_comment_id: int | None = None) -> list[str]:
    """The thread's author and the authors of its comments (but the one named)."""
    found = [annotation.from_.userId]
    found += [c.from_.userId for c in annotation.comments if c.commentId != except_comment_id]
    return list(dict.fromkeys(u for u in found if u))


def _candidates(event: CommentsEvent) -> dict[Reason, list[str]]:
    if isinstance(event, AnnotationAdded):
        assignee = event.annotation.assigned_user_id
        return {"mention": tagged_user_ids(event), "assign": [assignee] if assignee else []}
    if isinstance(event, CommentAdded):
        participants = thread_participants(event.annotation, except_comment_id=event.commentId)
        return {"mention": tagged_user_ids(event), "reply": participants}
    if isinstance(event, CommentUpdated):
        return {"mention": _newly_tagged(event)}
    if isinstance(event, Assigned):
        assigned = None if event.assigned is None else event.assigned.userId
        return {"assign": [assigned] if assigned else []}
    if isinstance(event, StatusChanged):
        assignee = event.annotation.assigned_user_id
        participants = thread_participants(event.annotation)
        return {"status": participants + ([assignee] if assignee else [])}
    return {}


def recipients_of(event: CommentsEvent) -> dict[Reason, list[str]]:
    """Who the event notifies, by reason: never the actor, each user once."""
    actor = _user_id(event.actionUser)
    taken: set[str] = {actor} if actor is not None else set()
    candidates = _candidates(event)
    chosen: dict[Reason, list[str]] = {}
    for reason in REASONS:
        users = [u for u in dict.fromkeys(candidates.get(reason, [])) if u not in taken]
        taken.update(users)
        if users:
            chosen[reason] = users
    return chosen


def _body(event: CommentsEvent) -> str | None:
    """The text of the comment the event concerns (the thread's first, for annotation events)."""
    comment = event.comment if isinstance(event, CommentEvent) else event.annotation.root
    return None if comment is None else comment.text


def notification_of(event: CommentsEvent, reason: Reason, users: list[str]) -> Notification:
    source_data: JsonObject = {
        "annotationId": event.annotationId,
        "annotation": stored_json(event.annotation),
    }
    if isinstance(event, CommentEvent):
        source_data["commentId"] = event.commentId
    named = dict.fromkeys(users, True)
    return Notification(
        id=f"{ID_PREFIX}{event.id}_{reason}",
        notificationSource=SOURCE,
        notificationSourceData=source_data,
        actionUser=event.actionUser,
        displayHeadlineMessageTemplate=HEADLINES[reason],
        displayHeadlineMessageTemplateData={"actionUser": event.actionUser},
        displayBodyMessage=_body(event),
        metadata=NotificationMetadata(
            apiKey=event.apiKey,
            organizationId=event.organizationId,
            documentId=event.documentId,
        ),
        notifyUsers=named,
        notifyUsersByUserId=dict(named),
        timestamp=event.occurredAt,
        actionType=event.trigger,
    )
