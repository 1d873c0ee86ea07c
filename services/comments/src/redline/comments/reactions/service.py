"""Reactions on a comment (`/v2/commentannotations/reactions/add`, `/delete`).

A reaction is a small annotation of its own, kept inside the comment it is on: one per icon,
with every user who reacted with that icon in `fromUsers`. The comment's `reactionAnnotationIds`
lists them. Reacting twice with the same icon changes nothing; removing the last user's reaction
removes the reaction annotation. A user token may react only as its own user.
"""

from __future__ import annotations

import copy

from redline.comments.reactions import models
from redline.comments.shared.add_rules import new_annotation_id
from redline.comments.shared.changes import changing_annotation
from redline.comments.shared.events import event_fields, stored
from redline.comments.shared.models import to_body
from redline.comments.shared.rights import acting_as, require_write
from redline.comments.shared.storage import AnnotationRow
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import NotFound
from redline.pg import Pool
from redline.proto.annotation import Annotation, Comment, Reaction
from redline.proto.events import ReactionAdded, ReactionDeleted
from redline.runtime.access import AccessClient


def _place(row: AnnotationRow) -> models.ReactionPlace:
    """The annotation's location and context, copied: the reaction is where its comment is."""
    place: models.ReactionPlace = {}
    if "locationId" in row.body:
        place["locationId"] = copy.deepcopy(row.body["locationId"])
    if "location" in row.body:
        place["location"] = copy.deepcopy(row.body["location"])
    if "context" in row.body:
        place["context"] = copy.deepcopy(row.body["context"])
    return place


def _new_reaction(row: AnnotationRow, icon: str, at_ms: int) -> models.ReactionAnnotation:
    # Keys in the order the answer has always listed them.
    return {
        "annotationId": new_annotation_id(),
        "type": "reaction",
        "icon": icon,
        "commentAnnotationId": row.annotation_id,
        **_place(row),
        "lastUpdated": at_ms,
        "fromUsers": [],
    }


def _reacted(reaction: models.ReactionAnnotation, user_id: str) -> bool:
    return any(
        (entry.get("from") or {}).get("userId") == user_id for entry in reaction["fromUsers"]
    )


def _icon(
    reactions: list[models.ReactionAnnotation], icon: str
) -> models.ReactionAnnotation | None:
    return next((r for r in reactions if r.get("icon") == icon), None)


class ReactionService:
    def __init__(self, pool: Pool, access: AccessClient) -> None:
        self._pool = pool
        self._access = access

    async def add(
        self, caller: ApiKeyPrincipal, request: models.Reaction
    ) -> models.ReactionAnnotation:
        acting_as(caller, request.user.userId, "data.user")
        decision = await require_write(
            self._access, caller, request.organizationId, request.documentId
        )
        user = to_body(request.user)
        async with changing_annotation(self._pool, caller, decision, request) as change:
            changed = change.one
            comment = changed.comment(request.commentId)
            reaction = _icon(comment.get("reactionAnnotations") or [], request.icon)
            if reaction is not None and _reacted(reaction, request.user.userId):
                return reaction  # nothing changed: nothing is saved
            reactions: list[models.ReactionAnnotation] = comment.setdefault(
                "reactionAnnotations", []
            )
            if reaction is None:
                reaction = _new_reaction(changed.row, request.icon, change.at)
                reactions.append(reaction)
            reaction["fromUsers"].append({"lastUpdated": change.at, "from": user})
            reaction["lastUpdated"] = change.at
            comment["reactionAnnotationIds"] = [r["annotationId"] for r in reactions]
            changed.touch()
            change.emit(
                ReactionAdded(
                    **event_fields(caller, changed.row, user),
                    before=stored(changed.before, Annotation),
                    commentId=request.commentId,
                    comment=stored(comment, Comment),
                    reaction=stored(reaction, Reaction),
                )
            )
        return reaction

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.Reaction
    ) -> models.ReactionAnnotation:
        acting_as(caller, request.user.userId, "data.user")
        decision = await require_write(
            self._access, caller, request.organizationId, request.documentId
        )
        user = to_body(request.user)
        async with changing_annotation(self._pool, caller, decision, request) as change:
            changed = change.one
            comment = changed.comment(request.commentId)
            reactions: list[models.ReactionAnnotation] = comment.get("reactionAnnotations") or []
            reaction = _icon(reactions, request.icon)
            if reaction is None or not _reacted(reaction, request.user.userId):
                raise NotFound("Reaction not found.")
            reaction["fromUsers"] = [
                entry
                for entry in reaction["fromUsers"]
                if (entry.get("from") or {}).get("userId") != request.user.userId
            ]
            reaction["lastUpdated"] = change.at
            if not reaction["fromUsers"]:
                reactions = [r for r in reactions if r is not reaction]
            comment["reactionAnnotations"] = reactions
            comment["reactionAnnotationIds"] = [r["annotationId"] for r in reactions]
            changed.touch()
            change.emit(
                ReactionDeleted(
                    **event_fields(caller, changed.row, user),
                    before=stored(changed.before, Annotation),
                    commentId=request.commentId,
                    comment=stored(comment, Comment),
                    reaction=stored(reaction, Reaction),
                )
            )
        return reaction
