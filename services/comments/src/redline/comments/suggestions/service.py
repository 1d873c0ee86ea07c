"""`/v2/commentannotations/suggestions/resolve`: accept or reject a pending suggestion.

Only annotations of type `suggestion` can be resolved, and only once: resolving one that is not
pending any more (twice, or the other way round) is FAILED_PRECONDITION, so a decision recorded
by one reviewer is never silently overwritten by another. The resolving user becomes
`resolved_by`; the answer is the annotation as get returns it.
"""

from __future__ import annotations

import copy
from typing import cast

from redline.comments.shared.columns import touch
from redline.comments.shared.events import event_fields
from redline.comments.shared.models import Annotation, to_body
from redline.comments.shared.rights import acting_as, locked_annotation, require_write
from redline.comments.shared.storage import SCHEMA, save
from redline.comments.suggestions import models
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import FailedPrecondition
from redline.pg import Pool, write_events
from redline.proto.events import Event, SuggestionAccepted, SuggestionRejected
from redline.runtime.access import AccessClient


class SuggestionService:
    def __init__(self, pool: Pool, access: AccessClient) -> None:
        self._pool = pool
        self._access = access

    async def resolve(
        self, caller: ApiKeyPrincipal, request: models.ResolveSuggestion
    ) -> Annotation:
        acting_as(caller, request.user.userId, "data.user")
        decision = await require_write(
            self._access, caller, request.organizationId, request.documentId
        )
        user = to_body(request.user)
        async with self._pool.acquire() as conn, conn.transaction():
            row = await locked_annotation(
                conn,
                caller,
                decision,
                request.organizationId,
                request.documentId,
                request.annotationId,
            )
            if row.type != "suggestion":
                raise FailedPrecondition("The annotation is not a suggestion.")
            if row.suggestion_status != "pending":
                raise FailedPrecondition(f"The suggestion is already {row.suggestion_status}.")
            before = copy.deepcopy(row.body)
            status = "accepted" if request.action == "accept" else "rejected"
            suggestion = row.body.get("suggestion")
            row.body["suggestion"] = {**(suggestion if isinstance(suggestion, dict) else {})}
            row.body["suggestion"]["status"] = status
            touch(row)
            row.resolved_by = request.user.userId
            await save(conn, row)
            fields = {**event_fields(caller, row, user), "before": before, "reason": request.reason}
            event: Event = (
                SuggestionAccepted(**fields)
                if status == "accepted"
                else SuggestionRejected(**fields)
            )
            await write_events(conn, SCHEMA, [event])
        # The stored body is the annotation exactly as the add endpoint wrote it and get
        # returns it.
        return cast(Annotation, row.body)
