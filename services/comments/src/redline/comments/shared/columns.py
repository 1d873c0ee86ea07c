"""An annotation row's filter columns, derived from its body by one derivation (`columns_of`).

The body is the truth; the columns are what the get filters read. Every writer brings them in
step with `sync_columns` (or `touch`, for a change that moves `lastUpdated`) before it stores the
row, so no filter can disagree with what get returns. `resolved_by` is the one column the body
does not carry: whoever changes the status sets it. The mention rule (`{{userId}}` in a comment's
text) is here too, since the `mentioned_user_ids` column follows from it.
"""

from __future__ import annotations

import re
from typing import Any

from msgspec import UNSET, UnsetType

from redline.comments.shared.storage import AnnotationRow
from redline.proto.annotation import Annotation, Comment
from redline.proto.events import now_ms
from redline.runtime.visibility import Audience

# A tagged user inside commentText / commentHtml: the user id in double curly braces.
MENTION = re.compile(r"\{\{([^{}]{1,256})\}\}")


def mentioned_in(text: str | None) -> list[str]:
    """User ids tagged in a comment's text, in order, without repeats."""
    if not text:
        return []
    return list(dict.fromkeys(m.strip() for m in MENTION.findall(text) if m.strip()))


def untagged_mentions(texts: dict[str, str | None], tagged: set[str]) -> dict[str, list[str]]:
    """Per text field, the `{{userId}}` mentions without a taggedUserContacts entry: the client
    could not show their names."""
    missing: dict[str, list[str]] = {}
    for field, text in texts.items():
        users = [user for user in mentioned_in(text) if user not in tagged]
        if users:
            missing[field] = users
    return missing


def user_id_of(user: Any) -> str | None:
    """The `userId` of a user object the caller gave (a request's user, before it is stored)."""
    if isinstance(user, dict):
        value = user.get("userId")
        return value if isinstance(value, str) else None
    return None


def comment_mentions(comment: Comment) -> list[str]:
    """Everyone a comment mentions: ids in its text and html, and its tagged contacts."""
    ids = mentioned_in(comment.text) + mentioned_in(comment.html)
    return ids + [entry.userId for entry in comment.tagged if entry.userId]


def columns_of(annotation: Annotation) -> dict[str, Any]:
    """Every filter column that follows from the annotation (`resolved_by` does not: it records
    who moved the status to a terminal one, which the annotation does not carry)."""
    mentions = [user for comment in annotation.comments for user in comment_mentions(comment)]
    commenters = [comment.from_.userId for comment in annotation.comments if comment.from_.userId]
    status, agent, location = annotation.status, annotation.agent, annotation.location
    audience = Audience.of(annotation)
    return {
        "type": annotation.type,
        "source_type": annotation.sourceType,
        "suggestion_status": annotation.suggestion_status,
        "status_id": None if status is UNSET else status.id,
        "status_type": None if status is UNSET else status.type,
        "location_id": None if location is UNSET else location.id,
        "creator_user_id": audience.creator_user_id,
        "assigned_user_id": audience.assigned_user_id,
        "visibility": audience.visibility,
        "visible_to": audience.visible_to,
        "mentioned_user_ids": list(dict.fromkeys(mentions)),
        "commenter_user_ids": list(dict.fromkeys(commenters)),
        "agent_id": None if agent is UNSET else _set(agent.agentId),
        "agent_type": None if agent is UNSET else _set(agent.agentType),
        "agent_source": None if agent is UNSET else agent.agentSource,
        "execution_id": None if agent is UNSET else _set(agent.executionId),
        "created_at": annotation.createdAt,
        "last_updated": annotation.lastUpdated,
    }


def _set(value: str | UnsetType) -> str | None:
    return None if value is UNSET else value


def sync_columns(row: AnnotationRow) -> None:
    """Recompute, in place, every filter column of `row` (except `resolved_by`) from `row.body`."""
    for column, value in columns_of(row.body).items():
        setattr(row, column, value)


def touch(row: AnnotationRow, at_ms: int | None = None) -> None:
    """Mark the annotation changed now (never earlier than it was), then sync its columns."""
    row.body.lastUpdated = max(at_ms or now_ms(), row.last_updated)
    sync_columns(row)
