"""The filter columns of an annotation row, derived from its body: call `with_columns` after every
change to a body so the columns the get endpoint filters on never drift from what it returns."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from redline.comments.storage.annotations import AnnotationRow

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


def _user_id(user: Any) -> str | None:
    if isinstance(user, dict):
        value = user.get("userId")
        return value if isinstance(value, str) else None
    return None


def comment_mentions(comment: dict[str, Any]) -> list[str]:
    """Everyone a comment mentions: ids in its text and html, and its tagged contacts."""
    ids = mentioned_in(comment.get("commentText")) + mentioned_in(comment.get("commentHtml"))
    for tagged in comment.get("taggedUserContacts") or []:
        user_id = _user_id(tagged)
        if user_id:
            ids.append(user_id)
    return ids


def filter_columns(body: dict[str, Any]) -> dict[str, Any]:
    """Every filter column that follows from the body (`resolved_by` does not: it records who
    moved the status to a terminal one, which the body does not carry)."""
    comments: list[dict[str, Any]] = body.get("comments") or []
    mentions: list[str] = []
    commenters: list[str] = []
    for comment in comments:
        mentions.extend(comment_mentions(comment))
        author = _user_id(comment.get("from"))
        if author:
            commenters.append(author)
    status = body.get("status") or {}
    visibility = body.get("visibilityConfig") or {}
    agent = body.get("agent") or {}
    location = body.get("location") or {}
    root_author = _user_id(comments[0].get("from")) if comments else _user_id(body.get("from"))
    visible_to = visibility.get("userIds") if visibility.get("type") == "restricted" else None
    return {
        "type": body.get("type", "comment"),
        "source_type": body.get("sourceType", "rest-api"),
        "suggestion_status": (body.get("suggestion") or {}).get("status"),
        "status_id": status.get("id"),
        "status_type": status.get("type"),
        "location_id": location.get("id"),
        "creator_user_id": root_author,
        "assigned_user_id": _user_id(body.get("assignedTo")),
        "visibility": visibility.get("type", "public"),
        "visible_to": list(dict.fromkeys(visible_to or [])),
        "mentioned_user_ids": list(dict.fromkeys(mentions)),
        "commenter_user_ids": list(dict.fromkeys(commenters)),
        "agent_id": agent.get("agentId"),
        "agent_type": agent.get("agentType"),
        "agent_source": agent.get("agentSource"),
        "execution_id": agent.get("executionId"),
        "created_at": body["createdAt"],
        "last_updated": body["lastUpdated"],
    }


def with_columns(row: AnnotationRow) -> AnnotationRow:
    """The row with every body-derived column recomputed from `row.body`."""
    return msgspec.structs.replace(row, **filter_columns(row.body))
