"""The rules of adding an annotation that a schema cannot state, and the body they build around
its comments (whose rules are the shared ones of any new comment)."""

from __future__ import annotations

import hashlib
from typing import Any

from redline.comments.annotations.models import NewAnnotation
from redline.comments.shared.add_rules import (
    assign_comment_ids,
    comment_body,
    issue,
    resolve_context,
)
from redline.comments.shared.models import Priority, Status, to_body
from redline.envelope.errors import Issue


def location_number(location_id: str) -> int:
    """The numeric `locationId` of a location: stable for its id, below 2**53 so JSON clients
    read it exactly."""
    return int.from_bytes(hashlib.sha256(location_id.encode()).digest()[:6], "big")


def check_status(status: Status, path: str, issues: list[Issue]) -> None:
    for name in ("color", "lightColor"):
        if getattr(status, name) is None:
            issue(issues, f"{path}.{name}", "Required when adding.", "missing_field")
    if status.svg is None and status.iconUrl is None:
        issue(issues, f"{path}.svg", "Either svg or iconUrl is required.", "missing_field")


def check_priority(priority: Priority, path: str, issues: list[Issue]) -> None:
    for name in ("color", "lightColor"):
        if getattr(priority, name) is None:
            issue(issues, f"{path}.{name}", "Required when adding.", "missing_field")


def annotation_body(
    entry: NewAnnotation,
    *,
    path: str,
    annotation_id: str,
    metadata: dict[str, str],
    now: int,
    issues: list[Issue],
) -> dict[str, Any]:
    """An annotation as stored, without its number (given once it is sure to be written)."""
    if entry.status is not None:
        check_status(entry.status, f"{path}.status", issues)
    if entry.priority is not None:
        check_priority(entry.priority, f"{path}.priority", issues)
    ids = assign_comment_ids(entry.commentData, (), f"{path}.commentData", issues)
    created = entry.createdAt if entry.createdAt is not None else now
    comments = [
        comment_body(c, ids[i], created, f"{path}.commentData[{i}]", issues)
        for i, c in enumerate(entry.commentData)
    ]
    root = comments[0]
    root_agent = root.get("agent")
    # Agent findings are suggestions to accept or reject, whatever `type` the request gave.
    kind = "suggestion" if root_agent is not None else (entry.type or "comment")
    visibility = to_body(entry.visibility) if entry.visibility else {"type": "public"}
    body: dict[str, Any] = {
        "annotationId": annotation_id,
        "type": kind,
        "sourceType": "agent" if root_agent is not None else "rest-api",
        "createdAt": created,
        "lastUpdated": entry.lastUpdated if entry.lastUpdated is not None else created,
        "hasDraftComments": False,
        "visibilityConfig": visibility,
        "metadata": metadata,
        "from": root["from"],
        "comments": comments,
    }
    if entry.location is not None:
        body["location"] = to_body(entry.location)
        body["locationId"] = location_number(entry.location.id)
    for name in ("targetElement", "status", "priority", "assignedTo"):
        value = getattr(entry, name)
        if value is not None:
            body[name] = to_body(value)
    context = resolve_context(entry.context, f"{path}.context", issues)
    if context is not None:
        body["context"] = context
    if entry.commentType is not None:
        body["commentType"] = entry.commentType
    if entry.actions is not None:
        body["actions"] = [to_body(action) for action in entry.actions]
    if kind == "suggestion":
        proposed = {k: v for k, v in (entry.suggestion or {}).items() if k != "status"}
        body["suggestion"] = {**proposed, "status": "pending"}
    if root_agent is not None:
        body["agent"] = root_agent
    return body
