"""The rules of adding annotations and comments that a schema cannot state, and the bodies they
build. Each check appends issues naming the offending field path instead of raising, so one
request can report every problem of an entry at once."""

from __future__ import annotations

import hashlib
import secrets
import string
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import msgspec

from redline.comments.models.add import NewAnnotation, NewComment, ReplyComment
from redline.comments.models.annotation import Agent, AgentReason, Priority, Status
from redline.comments.service.columns import untagged_mentions
from redline.envelope.codec import issue_from_validation
from redline.envelope.errors import Issue

AnyComment = NewComment | ReplyComment

# Agents this service ships with: `svc` agents with one of these ids are `built-in`, any other
# `svc` id is the caller's own (`custom`) agent.
BUILT_IN_AGENTS = frozenset({"spell-check", "grammar-check", "style-check", "tone-check"})

_ID_ALPHABET = string.ascii_letters + string.digits + "-_"
_COMMENT_ID_RANGE = (100_000, 1_000_000)  # six digits, as the client SDK makes them


def new_annotation_id() -> str:
    """20 URL-safe random characters (decisions §0)."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(20))


def location_number(location_id: str) -> int:
    """The numeric `locationId` of a location: stable for its id, below 2**53 so JSON clients
    read it exactly."""
    return int.from_bytes(hashlib.sha256(location_id.encode()).digest()[:6], "big")


def iso_ms(ms: int) -> str:
    """A comment's `lastUpdated`: ISO 8601 in UTC with milliseconds."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def to_body(value: msgspec.Struct) -> dict[str, Any]:
    """A request Struct as stored: fields the caller did not set are absent."""
    built: dict[str, Any] = msgspec.to_builtins(value)
    return built


def _issue(issues: list[Issue], path: str, message: str, code: str = "invalid_value") -> None:
    issues.append(Issue(code=code, path=path, message=message))


# fields ------------------------------------------------------------------------------------------


def check_status(status: Status, path: str, issues: list[Issue]) -> None:
    for name in ("color", "lightColor"):
        if getattr(status, name) is None:
            _issue(issues, f"{path}.{name}", "Required when adding.", "missing_field")
    if status.svg is None and status.iconUrl is None:
        _issue(issues, f"{path}.svg", "Either svg or iconUrl is required.", "missing_field")


def check_priority(priority: Priority, path: str, issues: list[Issue]) -> None:
    for name in ("color", "lightColor"):
        if getattr(priority, name) is None:
            _issue(issues, f"{path}.{name}", "Required when adding.", "missing_field")


def resolve_context(
    context: dict[str, Any] | None, path: str, issues: list[Issue]
) -> dict[str, Any] | None:
    """The context as stored: `accessFields` is rebuilt from the `access` map, one `key:value`
    token per value (a list value gives one token per item); a caller's own `accessFields` is
    replaced, so the tokens always match the map."""
    if context is None or "access" not in context:
        return context
    access = context["access"]
    if not isinstance(access, dict):
        _issue(issues, f"{path}.access", "Expected an object.", "invalid_type")
        return context
    tokens: list[str] = []
    for key, value in access.items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, bool):
                tokens.append(f"{key}:{'true' if item else 'false'}")
            elif isinstance(item, str | int | float):
                tokens.append(f"{key}:{item}")
            else:
                _issue(
                    issues,
                    f"{path}.access.{key}",
                    "Expected a string, number or boolean, or a list of them.",
                    "invalid_type",
                )
    return {**context, "accessFields": list(dict.fromkeys(tokens))}


def agent_block(agent: Agent, path: str, issues: list[Issue]) -> dict[str, Any] | None:
    """The stored agent block (with its `agentType`), or None when the block breaks a rule."""
    before = len(issues)
    if agent.agentSource == "svc" and agent.agentId is None:
        _issue(issues, f"{path}.agentId", "Required when agentSource is svc.", "missing_field")
    if agent.agentSource == "external" and agent.agentName is None:
        _issue(
            issues, f"{path}.agentName", "Required when agentSource is external.", "missing_field"
        )
    try:
        msgspec.convert(agent.reason, AgentReason, strict=True)
    except msgspec.ValidationError as exc:
        issues.append(issue_from_validation(exc, f"{path}.reason"))
    if len(issues) > before:
        return None
    if agent.agentSource == "external":
        agent_type = "external"
    else:
        agent_type = "built-in" if agent.agentId in BUILT_IN_AGENTS else "custom"
    block = to_body(agent)
    block["agentType"] = agent_type
    return block


def check_mentions(comment: AnyComment, path: str, issues: list[Issue]) -> None:
    """Every `{{userId}}` in the text needs a taggedUserContacts entry for the client to show."""
    tagged = {t.userId for t in comment.taggedUserContacts or []}
    texts = {"commentText": comment.commentText, "commentHtml": comment.commentHtml}
    for field, missing in untagged_mentions(texts, tagged).items():
        _issue(
            issues,
            f"{path}.{field}",
            "Tagged users need a taggedUserContacts entry: " + ", ".join(missing),
        )


# comments ----------------------------------------------------------------------------------------


def assign_comment_ids(
    comments: list[NewComment] | list[ReplyComment],
    taken: Iterable[int],
    path: str,
    issues: list[Issue],
) -> list[int]:
    """Ids of the new comments: a caller's own must be unused in the annotation; the others are
    drawn at random among the unused ones."""
    used = set(taken)
    for index, comment in enumerate(comments):
        if comment.commentId is None:
            continue
        if comment.commentId in used:
            _issue(issues, f"{path}[{index}].commentId", "Comment id already used.")
        used.add(comment.commentId)
    ids: list[int] = []
    for comment in comments:
        if comment.commentId is not None:
            ids.append(comment.commentId)
            continue
        new = secrets.randbelow(_COMMENT_ID_RANGE[1] - _COMMENT_ID_RANGE[0]) + _COMMENT_ID_RANGE[0]
        while new in used:
            new = (
                secrets.randbelow(_COMMENT_ID_RANGE[1] - _COMMENT_ID_RANGE[0])
                + _COMMENT_ID_RANGE[0]
            )
        used.add(new)
        ids.append(new)
    return ids


_COMMENT_SKIP = {"commentId", "from", "context", "agent", "createdAt", "lastUpdated"}
_REQUEST_ONLY = {"triggerNotification", "triggerActivities"}


def comment_body(
    comment: AnyComment, comment_id: int, now: int, path: str, issues: list[Issue]
) -> dict[str, Any]:
    """A comment as stored, checking the rules of its fields on the way."""
    check_mentions(comment, path, issues)
    fields = to_body(comment)
    created = comment.createdAt if comment.createdAt is not None else now
    updated = comment.lastUpdated if comment.lastUpdated is not None else created
    text_available = comment.isCommentTextAvailable
    if text_available is None:
        text_available = bool(comment.commentText or comment.commentHtml)
    body: dict[str, Any] = {
        "commentId": comment_id,
        "type": "text",
        "status": "added",
        "isDraft": False,
        "isCommentTextAvailable": text_available,
        "createdAt": created,
        "lastUpdated": iso_ms(updated),
        "from": fields["from"],
    }
    for key, value in fields.items():
        if key not in _COMMENT_SKIP and key not in _REQUEST_ONLY and key not in body:
            body[key] = value
    context = resolve_context(comment.context, f"{path}.context", issues)
    if context is not None:
        body["context"] = context
    body["sourceType"] = "rest-api"
    if comment.agent is not None:
        agent = agent_block(comment.agent, f"{path}.agent", issues)
        if agent is not None:
            body["agent"] = agent
        body["sourceType"] = "agent"
    return body


# annotations -------------------------------------------------------------------------------------


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
    if kind == "suggestion":
        body["suggestion"] = {"status": "pending"}
    if root_agent is not None:
        body["agent"] = root_agent
    return body
