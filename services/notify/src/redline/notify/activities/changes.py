"""From a comments event to its activity record: which action it was, what it targets, what
changed and the entity it concerns. No I/O.

- actionType: the event type without `comments.` (`comment_annotation.add`,
  `comment.reaction_add`), which is also the name of the key's activity trigger.
- featureType: `reaction` for the two reaction events, `comment` for the rest.
- targetEntityId: the annotation; targetSubEntityId: the comment id (as a string) for comment and
  reaction events, else null.
- changes: `{field: {from, to}}` for the fields the action changed; `{}` for adds and deletes.
- entityData: the reaction for reaction events, the comment for comment events, else the
  annotation (as it was, for a delete).
- id: `act_` + the event id, so a redelivered event maps to the same record.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from redline.notify.activities.models import Activity, ActivityMetadata, FeatureType
from redline.notify.gate import let_through
from redline.proto.annotation import Annotation, Comment, stored_json
from redline.proto.events import (
    AnnotationUpdated,
    Assigned,
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
from redline.proto.rpc import ApiKeyConfig

ID_PREFIX = "act_"
# Comment fields whose edit a comment.update records.
_COMMENT_FIELDS = ("commentText", "commentHtml")
_SUGGESTION_STATUS = "suggestionStatus"

Changes = dict[str, dict[str, Any]]


def feature_type(event: CommentsEvent) -> FeatureType:
    return "reaction" if isinstance(event, ReactionAdded | ReactionDeleted) else "comment"


def activity_id(event: CommentsEvent) -> str:
    return ID_PREFIX + event.id


def should_record(config: ApiKeyConfig, event: CommentsEvent) -> bool:
    """Activity logs and the action's trigger on for the event's key, both as they were when the
    event happened, and the request did not turn activities off (None: the endpoint has no
    flag)."""
    activity = config.activity
    return event.triggerActivities is not False and let_through(
        config,
        event,
        ("activity.isEnabled", activity.isEnabled),
        (f"activity.triggers.{event.trigger}", activity.triggers.get(event.trigger) is True),
    )


def _change(before: Any, after: Any) -> dict[str, Any]:
    """A field's change as the record keeps it: plain JSON values."""
    return {"from": msgspec.to_builtins(before), "to": msgspec.to_builtins(after)}


def _comment_texts(comment: Comment | None) -> dict[str, str | None]:
    """The comment's fields whose edit is recorded (None where it has none)."""
    if comment is None:
        return dict.fromkeys(_COMMENT_FIELDS)
    texts = {"commentText": comment.commentText, "commentHtml": comment.commentHtml}
    return {name: None if value is UNSET else value for name, value in texts.items()}


def _suggestion_status(annotation: Annotation | None) -> str:
    status = None if annotation is None else annotation.suggestion_status
    return status or "pending"


def _annotation_changes(event: AnnotationUpdated) -> Changes:
    """One entry per changed body key; names that are no body key (`updateUsers`) are left out,
    the keys a rename touched being listed beside them."""
    before = {} if event.before is None else stored_json(event.before)
    after = stored_json(event.annotation)
    return {
        name: _change(before.get(name), after.get(name))
        for name in event.changes
        if name in before or name in after
    }


def changes_of(event: CommentsEvent) -> Changes:
    if isinstance(event, StatusChanged):
        return {"status": _change(event.oldStatus, event.newStatus)}
    if isinstance(event, Assigned):
        return {"assignedTo": _change(event.previouslyAssigned, event.assigned)}
    if isinstance(event, PriorityChanged):
        return {"priority": _change(event.oldPriority, event.newPriority)}
    if isinstance(event, SuggestionAccepted | SuggestionRejected):
        to = "accepted" if isinstance(event, SuggestionAccepted) else "rejected"
        return {_SUGGESTION_STATUS: _change(_suggestion_status(event.before), to)}
    if isinstance(event, CommentUpdated):
        old = _comment_texts(
            None if event.before is None else event.before.comment(event.commentId)
        )
        new = _comment_texts(event.comment)
        return {
            name: _change(old[name], new[name])
            for name in _COMMENT_FIELDS
            if old[name] != new[name]
        }
    if isinstance(event, AnnotationUpdated):
        return _annotation_changes(event)
    return {}


def entity_data(event: CommentsEvent) -> dict[str, Any]:
    """The entity as the record keeps it: its stored JSON."""
    if isinstance(event, ReactionAdded | ReactionDeleted):
        return stored_json(event.reaction)
    if isinstance(event, CommentEvent):
        return stored_json(event.comment)
    return stored_json(event.annotation)


def record_of(event: CommentsEvent, *, immutable: bool) -> Activity:
    """The record of `event`; `immutable` is the key's setting when it is recorded."""
    return Activity(
        id=activity_id(event),
        featureType=feature_type(event),
        actionType=event.trigger,
        actionUser=event.actionUser,
        timestamp=event.occurredAt,
        metadata=ActivityMetadata(
            apiKey=event.apiKey,
            organizationId=event.organizationId,
            documentId=event.documentId,
        ),
        targetEntityId=event.annotationId,
        targetSubEntityId=str(event.commentId) if isinstance(event, CommentEvent) else None,
        changes=changes_of(event),
        entityData=entity_data(event),
        immutable=immutable,
    )
