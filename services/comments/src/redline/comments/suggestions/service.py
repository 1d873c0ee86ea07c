"""`/v2/commentannotations/suggestions/resolve`: accept or reject a pending suggestion.

Only annotations of type `suggestion` can be resolved, and only once: resolving one that is not
pending any more (twice, or the other way round) is FAILED_PRECONDITION, so a decision recorded
by one reviewer is never silently overwritten by another. The resolving user becomes
`resolved_by`; the answer is the annotation as get returns it.
"""

from __future__ import annotations

from msgspec import UNSET

from redline.comments.shared.changes import changing_annotation
from redline.comments.shared.events import event_fields
from redline.comments.shared.models import to_body
from redline.comments.shared.rights import acting_as, require_write
from redline.comments.suggestions import models
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import FailedPrecondition
from redline.pg import Pool
from redline.proto.annotation import Annotation
from redline.proto.events import SuggestionAccepted, SuggestionRejected
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
        async with changing_annotation(self._pool, caller, decision, request) as change:
            changed = change.one
            row = changed.row
            if row.type != "suggestion":
                raise FailedPrecondition("The annotation is not a suggestion.")
            if row.suggestion_status != "pending":
                raise FailedPrecondition(f"The suggestion is already {row.suggestion_status}.")
            status = "accepted" if request.action == "accept" else "rejected"
            proposed = {} if row.body.suggestion is UNSET else row.body.suggestion
            row.body.suggestion = {**proposed, "status": status}
            changed.touch()
            row.resolved_by = request.user.userId
            fields = {
                **event_fields(caller, row, user),
                "before": changed.before,
                "reason": request.reason,
            }
            change.emit(
                SuggestionAccepted(**fields)
                if status == "accepted"
                else SuggestionRejected(**fields)
            )
        # The stored body is the annotation exactly as the add endpoint wrote it and get
        # returns it.
        return row.body
