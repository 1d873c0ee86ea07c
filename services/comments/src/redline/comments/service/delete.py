"""Deleting annotations (`/v2/commentannotations/delete`) and comments
(`/v1/commentannotations/comments/delete`).

Deleting the root comment (the first one) deletes the whole thread: an annotation is its root
comment, and replies without it would have no author or subject. So does deleting every comment.
Such a call answers for each comment it was asked about, emits `CommentDeleted` for each, and then
`AnnotationDeleted` with the annotation as it was.
"""

from __future__ import annotations

import copy
from typing import Any

from redline.comments.models import change as models
from redline.comments.service import row_sync
from redline.comments.service.writer import SCHEMA, Writer
from redline.comments.storage import change as storage
from redline.comments.storage.annotations import save
from redline.envelope.errors import NotFound
from redline.pg import write_events
from redline.proto.events import AnnotationDeleted, CommentDeleted, Event

DELETED = "Deleted Successfully"
ANNOTATION_NOT_FOUND = "Annotation not found."
COMMENT_DELETED = "Deleted successfully"
COMMENT_NOT_FOUND = "Comment not found."


async def delete_annotations(
    writer: Writer, request: models.DeleteAnnotations
) -> dict[str, models.ItemResult]:
    decision = await writer.require_write(request.organizationId, request.documentId)
    which = storage.Selection(
        annotation_ids=request.annotationIds,
        location_ids=request.locationIds,
        creator_ids=request.userIds,
        agent_id=request.agentId,
        fresh_agent_suggestions=bool(request.agentSuggestions),
    )
    results: dict[str, models.ItemResult] = {}
    async with writer.pool.acquire() as conn, conn.transaction():
        rows = await storage.select_for_update(
            conn, writer.principal.api_key, request.organizationId, request.documentId, which
        )
        rows = [row for row in rows if writer.visible(row, decision)]
        await storage.delete(
            conn,
            writer.principal.api_key,
            request.organizationId,
            [row.annotation_id for row in rows],
        )
        events: list[Event] = [AnnotationDeleted(**writer.event_fields(row)) for row in rows]
        await write_events(conn, SCHEMA, events)
    for row in rows:
        results[row.annotation_id] = models.ItemResult(True, row.annotation_id, DELETED)
    for annotation_id in request.annotationIds or []:
        if annotation_id not in results:
            results[annotation_id] = models.ItemResult(False, annotation_id, ANNOTATION_NOT_FOUND)
    return results


def _comment_id(comment: dict[str, Any]) -> Any:
    return comment.get("commentId")


async def delete_comments(
    writer: Writer, request: models.DeleteComments
) -> dict[str, models.CommentResult]:
    decision = await writer.require_write(request.organizationId, request.documentId)
    api_key = writer.principal.api_key
    async with writer.pool.acquire() as conn, conn.transaction():
        row = await storage.get_in_document_for_update(
            conn, api_key, request.organizationId, request.documentId, request.annotationId
        )
        if row is None or not writer.visible(row, decision):
            raise NotFound(ANNOTATION_NOT_FOUND)
        before = copy.deepcopy(row.body)
        comments: list[dict[str, Any]] = row.body.get("comments") or []
        present = {_comment_id(c): c for c in comments}
        asked = (
            list(dict.fromkeys(request.commentIds))
            if request.commentIds is not None
            else list(present)
        )
        gone = [present[cid] for cid in asked if cid in present]
        root_gone = bool(comments) and any(c is comments[0] for c in gone)
        events: list[Event] = []
        if root_gone or len(gone) == len(comments):
            base = writer.event_fields(row)
            events.extend(CommentDeleted(**base, commentId=_comment_id(c), comment=c) for c in gone)
            events.append(AnnotationDeleted(**base))
            await storage.delete(conn, api_key, row.organization_id, [row.annotation_id])
        elif gone:
            gone_ids = {_comment_id(c) for c in gone}
            row.body["comments"] = [c for c in comments if _comment_id(c) not in gone_ids]
            row_sync.touch(row)
            await save(conn, row)
            base = {**writer.event_fields(row), "before": before}
            events.extend(CommentDeleted(**base, commentId=_comment_id(c), comment=c) for c in gone)
        await write_events(conn, SCHEMA, events)
    results: dict[str, models.CommentResult] = {}
    for cid in asked:
        if cid in present:
            results[str(cid)] = models.CommentResult(True, cid, COMMENT_DELETED)
        else:
            results[str(cid)] = models.CommentResult(False, cid, COMMENT_NOT_FOUND)
    return results
