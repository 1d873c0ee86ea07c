"""`/v2/commentannotations/suggestions/resolve`: accept or reject a pending suggestion.

Only annotations of type `suggestion` can be resolved, and only once: resolving one that is not
pending any more (twice, or the other way round) is FAILED_PRECONDITION, so a decision recorded
by one reviewer is never silently overwritten by another. The resolving user becomes
`resolved_by`; the answer is the annotation as get returns it.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from redline.comments.models import change as models
from redline.comments.service import row_sync
from redline.comments.service.writer import SCHEMA, Writer
from redline.comments.storage import change as storage
from redline.comments.storage.annotations import save
from redline.envelope.errors import FailedPrecondition, NotFound
from redline.pg import write_events
from redline.proto.events import Event, SuggestionAccepted, SuggestionRejected


async def resolve(writer: Writer, request: models.ResolveSuggestion) -> dict[str, Any]:
    writer.acting_as(request.user.userId, "data.user")
    decision = await writer.require_write(request.organizationId, request.documentId)
    user: dict[str, Any] = msgspec.to_builtins(request.user)
    async with writer.pool.acquire() as conn, conn.transaction():
        row = await storage.get_in_document_for_update(
            conn,
            writer.principal.api_key,
            request.organizationId,
            request.documentId,
            request.annotationId,
        )
        if row is None or not writer.visible(row, decision):
            raise NotFound("Annotation not found.")
        if row.type != "suggestion":
            raise FailedPrecondition("The annotation is not a suggestion.")
        if row.suggestion_status != "pending":
            raise FailedPrecondition(f"The suggestion is already {row.suggestion_status}.")
        before = copy.deepcopy(row.body)
        status = "accepted" if request.action == "accept" else "rejected"
        suggestion = row.body.get("suggestion")
        row.body["suggestion"] = {**(suggestion if isinstance(suggestion, dict) else {})}
        row.body["suggestion"]["status"] = status
        row_sync.touch(row)
        row.resolved_by = request.user.userId
        await save(conn, row)
        fields = {**writer.event_fields(row, user), "before": before, "reason": request.reason}
        event: Event = (
            SuggestionAccepted(**fields) if status == "accepted" else SuggestionRejected(**fields)
        )
        await write_events(conn, SCHEMA, [event])
    return row.body
