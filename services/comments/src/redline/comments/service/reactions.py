"""Reactions on a comment (`/v2/commentannotations/reactions/add`, `/delete`).

A reaction is a small annotation of its own, kept inside the comment it is on: one per icon,
with every user who reacted with that icon in `fromUsers`. The comment's `reactionAnnotationIds`
lists them. Reacting twice with the same icon changes nothing; removing the last user's reaction
removes the reaction annotation. A user token may react only as its own user.
"""

from __future__ import annotations

import copy
import secrets
from typing import Any

import msgspec

from redline.comments.models import change as models
from redline.comments.service import row_sync
from redline.comments.service.comment_edit import locked_comment
from redline.comments.service.writer import SCHEMA, Writer
from redline.comments.storage.annotations import AnnotationRow, save
from redline.envelope.errors import NotFound
from redline.pg import write_events
from redline.proto.events import ReactionAdded, ReactionDeleted

_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _reaction_id() -> str:
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(20))


def _new_reaction(row: AnnotationRow, icon: str, at_ms: int) -> dict[str, Any]:
    reaction: dict[str, Any] = {
        "annotationId": _reaction_id(),
        "type": "reaction",
        "icon": icon,
        "commentAnnotationId": row.annotation_id,
    }
    for key in ("locationId", "location", "context"):
        if key in row.body:
            reaction[key] = copy.deepcopy(row.body[key])
    reaction["lastUpdated"] = at_ms
    reaction["fromUsers"] = []
    return reaction


def _reacted(reaction: dict[str, Any], user_id: str) -> bool:
    return any(
        (entry.get("from") or {}).get("userId") == user_id for entry in reaction["fromUsers"]
    )


async def add_reaction(writer: Writer, request: models.Reaction) -> dict[str, Any]:
    writer.acting_as(request.user.userId, "data.user")
    decision = await writer.require_write(request.organizationId, request.documentId)
    user: dict[str, Any] = msgspec.to_builtins(request.user)
    async with writer.pool.acquire() as conn, conn.transaction():
        row, comment = await locked_comment(conn, writer, decision, request)
        reactions: list[dict[str, Any]] = comment.setdefault("reactionAnnotations", [])
        reaction = next((r for r in reactions if r.get("icon") == request.icon), None)
        if reaction is not None and _reacted(reaction, request.user.userId):
            return reaction
        before = copy.deepcopy(row.body)
        at = row_sync.now_ms()
        if reaction is None:
            reaction = _new_reaction(row, request.icon, at)
            reactions.append(reaction)
        reaction["fromUsers"].append({"lastUpdated": at, "from": user})
        reaction["lastUpdated"] = at
        comment["reactionAnnotationIds"] = [r["annotationId"] for r in reactions]
        row_sync.touch(row, at)
        await save(conn, row)
        event = ReactionAdded(
            **writer.event_fields(row, user),
            before=before,
            commentId=request.commentId,
            comment=comment,
            reaction=reaction,
        )
        await write_events(conn, SCHEMA, [event])
    return reaction


async def delete_reaction(writer: Writer, request: models.Reaction) -> dict[str, Any]:
    writer.acting_as(request.user.userId, "data.user")
    decision = await writer.require_write(request.organizationId, request.documentId)
    user: dict[str, Any] = msgspec.to_builtins(request.user)
    async with writer.pool.acquire() as conn, conn.transaction():
        row, comment = await locked_comment(conn, writer, decision, request)
        reactions: list[dict[str, Any]] = comment.get("reactionAnnotations") or []
        reaction = next((r for r in reactions if r.get("icon") == request.icon), None)
        if reaction is None or not _reacted(reaction, request.user.userId):
            raise NotFound("Reaction not found.")
        before = copy.deepcopy(row.body)
        at = row_sync.now_ms()
        reaction["fromUsers"] = [
            entry
            for entry in reaction["fromUsers"]
            if (entry.get("from") or {}).get("userId") != request.user.userId
        ]
        reaction["lastUpdated"] = at
        if not reaction["fromUsers"]:
            reactions = [r for r in reactions if r is not reaction]
        comment["reactionAnnotations"] = reactions
        comment["reactionAnnotationIds"] = [r["annotationId"] for r in reactions]
        row_sync.touch(row, at)
        await save(conn, row)
        event = ReactionDeleted(
            **writer.event_fields(row, user),
            before=before,
            commentId=request.commentId,
            comment=comment,
            reaction=reaction,
        )
        await write_events(conn, SCHEMA, [event])
    return reaction
