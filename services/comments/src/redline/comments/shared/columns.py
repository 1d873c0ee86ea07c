"""An annotation row's filter columns, derived from its body by one derivation.

The body is the truth; the columns are what the get filters read. Every writer brings them in
step with `sync_columns` (or `touch`, for a change that moves `lastUpdated`) before it stores the
row, so no filter can disagree with what get returns. `resolved_by` is the one column the body
does not carry: whoever changes the status sets it. The mention rule (`{{userId}}` in a comment's
text) is here too, since the `mentioned_user_ids` column follows from it.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from redline.comments.shared.storage import AnnotationRow
from redline.proto.annotation import Annotation
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
    """The `userId` of a stored user object, if it is one."""
    if isinstance(user, dict):
        value = user.get("userId")
        return value if isinstance(value, str) else None
    return None


def comment_mentions(comment: dict[str, Any]) -> list[str]:
    """Everyone a comment mentions: ids in its text and html, and its tagged contacts."""
    ids = mentioned_in(comment.get("commentText")) + mentioned_in(comment.get("commentHtml"))
    for tagged in comment.get("taggedUserContacts") or []:
        user_id = user_id_of(tagged)
        if user_id:
            ids.append(user_id)
    return ids


def _columns(body: dict[str, Any]) -> dict[str, Any]:
    """Every filter column that follows from the body (`resolved_by` does not: it records who
    moved the status to a terminal one, which the body does not carry)."""
    comments: list[dict[str, Any]] = body.get("comments") or []
    mentions: list[str] = []
    commenters: list[str] = []
    for comment in comments:
        mentions.extend(comment_mentions(comment))
        author = user_id_of(comment.get("from"))
        if author:
            commenters.append(author)
    status = body.get("status") or {}
    agent = body.get("agent") or {}
    location = body.get("location") or {}
    audience = Audience.of(msgspec.convert(body, Annotation))
    return {
        "type": body.get("type", "comment"),
        "source_type": body.get("sourceType", "rest-api"),
        "suggestion_status": (body.get("suggestion") or {}).get("status"),
        "status_id": status.get("id"),
        "status_type": status.get("type"),
        "location_id": location.get("id"),
        "creator_user_id": audience.creator_user_id,
        "assigned_user_id": audience.assigned_user_id,
        "visibility": audience.visibility,
        "visible_to": audience.visible_to,
        "mentioned_user_ids": list(dict.fromkeys(mentions)),
        "commenter_user_ids": list(dict.fromkeys(commenters)),
        "agent_id": agent.get("agentId"),
        "agent_type": agent.get("agentType"),
        "agent_source": agent.get("agentSource"),
        "execution_id": agent.get("executionId"),
        "created_at": body["createdAt"],
        "last_updated": body["lastUpdated"],
    }


def sync_columns(row: AnnotationRow) -> None:
    """Recompute, in place, every filter column of `row` (except `resolved_by`) from `row.body`."""
    for column, value in _columns(row.body).items():
        setattr(row, column, value)


def touch(row: AnnotationRow, at_ms: int | None = None) -> None:
    """Mark the annotation changed now (never earlier than it was), then sync its columns."""
    row.body["lastUpdated"] = max(at_ms or now_ms(), row.last_updated)
    sync_columns(row)
