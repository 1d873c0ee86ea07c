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
from redline.comments.shared.events import event_fields
from redline.comments.shared.models import as_stored, to_body
from redline.comments.shared.rights import acting_as, require_write
from redline.comments.shared.storage import AnnotationRow
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import NotFound
from redline.pg import Pool
from redline.proto.annotation import Comment, Reaction, ReactionUser, User, stored_json
from redline.proto.events import ReactionAdded, ReactionDeleted
from redline.runtime.access import AccessClient


def _new_reaction(row: AnnotationRow, icon: str, at_ms: int) -> Reaction:
    """A reaction with nobody in it yet, where its comment is: the annotation's location and
    context, copied."""
    body = row.body
    return Reaction(
        annotationId=new_annotation_id(),
        type="reaction",
        icon=icon,
        commentAnnotationId=row.annotation_id,
        locationId=body.locationId,
        location=copy.deepcopy(body.location),
        context=copy.deepcopy(body.context),
        lastUpdated=at_ms,
        fromUsers=[],
    )


def _icon(reactions: list[Reaction], icon: str) -> Reaction | None:
    return next((r for r in reactions if r.icon == icon), None)


def _keep(comment: Comment, reactions: list[Reaction]) -> None:
    """The comment's reactions, and their ids beside them."""
    comment.reactionAnnotations = reactions
    comment.reactionAnnotationIds = [r.annotationId for r in reactions]


class ReactionService:
    def __init__(self, pool: Pool, access: AccessClient) -> None:
        self._pool = pool
        self._access = access

    async def add(self, caller: ApiKeyPrincipal, request: models.Reaction) -> Reaction:
        acting_as(caller, request.user.userId, "data.user")
        decision = await require_write(
            self._access, caller, request.organizationId, request.documentId
        )
        user = as_stored(request.user, User)
        async with changing_annotation(self._pool, caller, decision, request) as change:
            changed = change.one
            comment = changed.comment(request.commentId)
            reaction = _icon(comment.reactions, request.icon)
            if reaction is not None and reaction.reacted(request.user.userId):
                return reaction  # nothing changed: nothing is saved
            reactions = comment.reactions
            if reaction is None:
                reaction = _new_reaction(changed.row, request.icon, change.at)
                reactions.append(reaction)
            reaction.fromUsers.append(ReactionUser(lastUpdated=change.at, from_=user))
            reaction.lastUpdated = change.at
            _keep(comment, reactions)
            changed.touch()
            change.emit(
                ReactionAdded(
                    **event_fields(caller, changed.row, stored_json(user)),
                    before=changed.before,
                    commentId=request.commentId,
                    comment=comment,
                    reaction=reaction,
                )
            )
        return reaction

    async def delete(self, caller: ApiKeyPrincipal, request: models.Reaction) -> Reaction:
        acting_as(caller, request.user.userId, "data.user")
        decision = await require_write(
            self._access, caller, request.organizationId, request.documentId
        )
        user = to_body(request.user)
        async with changing_annotation(self._pool, caller, decision, request) as change:
            changed = change.one
            comment = changed.comment(request.commentId)
            reactions = comment.reactions
            reaction = _icon(reactions, request.icon)
            if reaction is None or not reaction.reacted(request.user.userId):
                raise NotFound("Reaction not found.")
            reaction.fromUsers = [
                entry for entry in reaction.fromUsers if entry.from_.userId != request.user.userId
            ]
            reaction.lastUpdated = change.at
            if not reaction.fromUsers:
                reactions = [r for r in reactions if r is not reaction]
            _keep(comment, reactions)
            changed.touch()
            change.emit(
                ReactionDeleted(
                    **event_fields(caller, changed.row, user),
                    before=changed.before,
                    commentId=request.commentId,
                    comment=comment,
                    reaction=reaction,
                )
            )
        return reaction
