"""`/v2/commentannotations/comments/update`: new text, HTML or tagged contacts for one comment.

The comment's status becomes `updated` and its `lastUpdated` (ISO 8601) and the annotation's
`lastUpdated` (ms) move to now. Every `{{userId}}` in the resulting text and HTML needs a tagged
contact: the ones sent, or the comment's own when none are sent.
"""

from __future__ import annotations

import copy
from typing import Any, Protocol

import msgspec

from redline.comments.models import change as models
from redline.comments.service import row_sync
from redline.comments.service.columns import untagged_mentions
from redline.comments.service.writer import SCHEMA, Writer
from redline.comments.storage import change as storage
from redline.comments.storage.annotations import AnnotationRow, save
from redline.envelope.errors import InvalidArgument, NotFound
from redline.pg import Connection, write_events
from redline.proto.events import CommentUpdated
from redline.proto.rpc import AccessDecision

UPDATED = "Updated successfully"


class CommentRef(Protocol):
    """A request that names one comment."""

    @property
    def organizationId(self) -> str: ...
    @property
    def documentId(self) -> str: ...
    @property
    def annotationId(self) -> str: ...
    @property
    def commentId(self) -> int: ...


async def locked_comment(
    conn: Connection, writer: Writer, decision: AccessDecision | None, ref: CommentRef
) -> tuple[AnnotationRow, dict[str, Any]]:
    """The annotation (locked) and its comment; NOT_FOUND when either is missing or unseen."""
    row = await storage.get_in_document_for_update(
        conn, writer.principal.api_key, ref.organizationId, ref.documentId, ref.annotationId
    )
    if row is None or not writer.visible(row, decision):
        raise NotFound("Annotation not found.")
    for comment in row.body.get("comments") or []:
        if comment.get("commentId") == ref.commentId:
            return row, comment
    raise NotFound("Comment not found.")


def check_mentions(comment: dict[str, Any], path: str) -> None:
    tagged = {str(c.get("userId")) for c in comment.get("taggedUserContacts") or []}
    texts = {key: comment.get(key) for key in ("commentText", "commentHtml")}
    for key, missing in untagged_mentions(texts, tagged).items():
        raise InvalidArgument.field(
            path, f"{key}: tagged users need a taggedUserContacts entry: " + ", ".join(missing)
        )


async def update_comment(writer: Writer, request: models.UpdateComment) -> models.CommentResult:
    decision = await writer.require_write(request.organizationId, request.documentId)
    async with writer.pool.acquire() as conn, conn.transaction():
        row, comment = await locked_comment(conn, writer, decision, request)
        writer.acting_as(_author(comment), "data.commentId")
        before = copy.deepcopy(row.body)
        if request.commentText is not None:
            comment["commentText"] = request.commentText
        if request.commentHtml is not None:
            comment["commentHtml"] = request.commentHtml
        if request.taggedUserContacts is not None:
            comment["taggedUserContacts"] = msgspec.to_builtins(request.taggedUserContacts)
        check_mentions(comment, "data.taggedUserContacts")
        comment["status"] = "updated"
        comment["lastUpdated"] = row_sync.iso_now()
        row_sync.touch(row)
        await save(conn, row)
        event = CommentUpdated(
            **writer.event_fields(row, comment.get("from")),
            before=before,
            commentId=request.commentId,
            comment=comment,
        )
        await write_events(conn, SCHEMA, [event])
    return models.CommentResult(True, request.commentId, UPDATED)


def _author(comment: dict[str, Any]) -> str | None:
    author = comment.get("from")
    return author.get("userId") if isinstance(author, dict) else None
