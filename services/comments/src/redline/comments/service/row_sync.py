"""Keeping an annotation row's filter columns equal to its body.

The body is the truth; the columns are what the get filters read. Every change to a stored body
goes through `touch` (or `sync_columns`) before the row is saved, so no filter can disagree with
what get returns. `resolved_by` is the one column the body does not carry: whoever changes the
status sets it. `rename_user` rewrites one user everywhere a body holds users.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from redline.comments.service.columns import MENTION, filter_columns
from redline.comments.storage.annotations import AnnotationRow
from redline.proto.events import now_ms

__all__ = ["MENTION", "iso_now", "now_ms", "rename_user", "sync_columns", "touch"]


def iso_now() -> str:
    """Comments' `lastUpdated`: ISO 8601 in UTC with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def sync_columns(row: AnnotationRow) -> None:
    """Recompute, in place, every filter column of `row` (except `resolved_by`) from `row.body`,
    by the one derivation the add endpoint uses too (`columns.filter_columns`)."""
    for column, value in filter_columns(row.body).items():
        setattr(row, column, value)


def touch(row: AnnotationRow, at_ms: int | None = None) -> None:
    """Mark the annotation changed now, then bring the columns in step."""
    row.body["lastUpdated"] = max(at_ms or now_ms(), row.last_updated)
    sync_columns(row)


# Body keys that hold the caller's own data, never users to rename.
_OPAQUE = frozenset({"context", "metadata", "pageInfo", "agent", "customList"})


def rename_user(
    body: dict[str, Any], old_id: str, new_id: str, name: str | None, email: str | None
) -> bool:
    """Rewrite every user object of `old_id` in the body (author, assignee, comment authors and
    recipients, tagged contacts, reaction users, subscribers) and the `{{old_id}}` mentions in
    comment text. Returns whether anything changed."""
    changed = False

    def rewrite(user: dict[str, Any]) -> None:
        nonlocal changed
        user["userId"] = new_id
        if name is not None:
            user["name"] = name
            if "name_lowercase" in user:
                user["name_lowercase"] = name.lower()
        if email is not None:
            user["email"] = email
            if "email_lowercase" in user:
                user["email_lowercase"] = email.lower()
        changed = True

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if value.get("userId") == old_id:
                rewrite(value)
            for key, inner in value.items():
                if key not in _OPAQUE:
                    walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(body)
    old_mention, new_mention = "{{" + old_id + "}}", "{{" + new_id + "}}"
    for comment in body.get("comments") or []:
        for key in ("commentText", "commentHtml"):
            text = comment.get(key)
            if isinstance(text, str) and old_mention in text:
                comment[key] = text.replace(old_mention, new_mention)
                changed = True
    visibility = body.get("visibilityConfig")
    if isinstance(visibility, dict) and isinstance(visibility.get("userIds"), list):
        ids = visibility["userIds"]
        if old_id in ids:
            visibility["userIds"] = _unique([new_id if u == old_id else u for u in ids])
            changed = True
    return changed
