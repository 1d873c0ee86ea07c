"""The rules of adding that a schema cannot state, for what annotations and comments share: new
ids, a comment as stored, and the context and agent blocks both carry. Each check appends issues
naming the offending field path instead of raising, so one request can report every problem of
an entry at once."""

from __future__ import annotations

import secrets
import string
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
from msgspec import UNSET

from redline.comments.shared.columns import untagged_mentions
from redline.comments.shared.models import (
    Agent,
    AgentReason,
    NewComment,
    ReplyComment,
    ReplyTaggedUserContact,
    TaggedUserContact,
    all_stored,
    as_stored,
    given,
    own_agent_source,
)
from redline.envelope.codec import issue_from_validation
from redline.envelope.errors import InvalidArgument, Issue
from redline.proto.annotation import Action, AgentType, Attachment, Comment, Progress, User
from redline.proto.annotation import Agent as StoredAgent
from redline.proto.annotation import TaggedUserContact as StoredTaggedUserContact

AnyComment = NewComment | ReplyComment

# Agents this service ships with: `svc` agents with one of these ids are `built-in`, any other
# `svc` id is the caller's own (`custom`) agent.
BUILT_IN_AGENTS = frozenset({"spell-check", "grammar-check", "style-check", "tone-check"})

_ID_ALPHABET = string.ascii_letters + string.digits + "-_"
_COMMENT_ID_RANGE = (100_000, 1_000_000)  # six digits, as the client SDK makes them


def new_annotation_id() -> str:
    """20 URL-safe random characters; reactions, annotations of their own, too."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(20))


def iso_ms(ms: int) -> str:
    """A comment's `lastUpdated`: ISO 8601 in UTC with milliseconds."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def issue(issues: list[Issue], path: str, message: str, code: str = "invalid_value") -> None:
    issues.append(Issue(code=code, path=path, message=message))


# fields ------------------------------------------------------------------------------------------


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
        issue(issues, f"{path}.access", "Expected an object.", "invalid_type")
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
                issue(
                    issues,
                    f"{path}.access.{key}",
                    "Expected a string, number or boolean, or a list of them.",
                    "invalid_type",
                )
    return {**context, "accessFields": list(dict.fromkeys(tokens))}


def agent_block(agent: Agent, path: str, issues: list[Issue]) -> StoredAgent | None:
    """The stored agent block (with its `agentType`), or None when the block breaks a rule."""
    before = len(issues)
    if agent.agentSource != "external" and agent.agentId is None:
        issue(issues, f"{path}.agentId", "Required when agentSource is svc.", "missing_field")
    if agent.agentSource == "external" and agent.agentName is None:
        issue(
            issues, f"{path}.agentName", "Required when agentSource is external.", "missing_field"
        )
    try:
        msgspec.convert(agent.reason, AgentReason, strict=True)
    except msgspec.ValidationError as exc:
        issues.append(issue_from_validation(exc, f"{path}.reason"))
    if len(issues) > before:
        return None
    if agent.agentSource == "external":
        agent_type: AgentType = "external"
    else:
        agent_type = "built-in" if agent.agentId in BUILT_IN_AGENTS else "custom"
    block = as_stored(agent, StoredAgent)
    block.agentSource = own_agent_source(agent.agentSource)
    block.agentType = agent_type
    return block


def check_tagged(
    tagged: Sequence[TaggedUserContact | ReplyTaggedUserContact] | None,
    path: str,
    issues: list[Issue],
) -> None:
    """A tagged entry describes a user (`contact`) or names a user group (`group`). `path` is
    the list's."""
    for index, entry in enumerate(tagged or []):
        if entry.contact is None and entry.group is None:
            issue(
                issues,
                f"{path}[{index}].contact",
                "Required unless the entry names a group.",
                "missing_field",
            )


def refuse_untagged_contacts(comments: Iterable[tuple[str, AnyComment]]) -> None:
    """INVALID_ARGUMENT for the whole request when a tagged entry of any of its comments (each
    with its path) has neither a contact nor a group, as for any field the schema requires."""
    issues: list[Issue] = []
    for path, comment in comments:
        check_tagged(comment.taggedUserContacts, f"{path}.taggedUserContacts", issues)
    if issues:
        raise InvalidArgument.from_issues(issues)


def check_mentions(comment: AnyComment, path: str, issues: list[Issue]) -> None:
    """Every `{{userId}}` in the text needs a taggedUserContacts entry for the client to show."""
    tagged = {t.userId for t in comment.taggedUserContacts or []}
    texts = {"commentText": comment.commentText, "commentHtml": comment.commentHtml}
    for field, missing in untagged_mentions(texts, tagged).items():
        issue(
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
            issue(issues, f"{path}[{index}].commentId", "Comment id already used.")
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


def comment_body(
    comment: AnyComment, comment_id: int, now: int, path: str, issues: list[Issue]
) -> Comment:
    """A comment as stored, checking the rules of its fields on the way."""
    check_mentions(comment, path, issues)
    created = comment.createdAt if comment.createdAt is not None else now
    updated = comment.lastUpdated if comment.lastUpdated is not None else created
    text_available = comment.isCommentTextAvailable
    if text_available is None:
        text_available = bool(comment.commentText or comment.commentHtml)
    context = resolve_context(comment.context, f"{path}.context", issues)
    agent = None if comment.agent is None else agent_block(comment.agent, f"{path}.agent", issues)
    return Comment(
        commentId=comment_id,
        type="text",
        status="added",
        isDraft=False,
        isCommentTextAvailable=text_available,
        createdAt=created,
        lastUpdated=iso_ms(updated),
        from_=as_stored(comment.from_, User),
        sourceType="rest-api" if comment.agent is None else "agent",
        commentText=given(comment.commentText),
        commentHtml=given(comment.commentHtml),
        context=given(context),
        metadata=given(comment.metadata),
        isCommentResolverUsed=given(comment.isCommentResolverUsed),
        attachments=all_stored(comment.attachments, Attachment),
        agent=given(agent),
        progress=UNSET if comment.progress is None else as_stored(comment.progress, Progress),
        actions=all_stored(comment.actions, Action),
        taggedUserContacts=all_stored(comment.taggedUserContacts, StoredTaggedUserContact),
    )
