"""The URL map of reactions: /v2/commentannotations/reactions/add and delete."""

from __future__ import annotations

from redline.comments.app_keys import REACTIONS
from redline.comments.reactions import models
from redline.envelope import Call, Endpoint


async def add_reaction(call: Call, request: models.Reaction) -> models.ReactionAnnotation:
    return await call.app[REACTIONS].add(call.api_key, request)


async def delete_reaction(call: Call, request: models.Reaction) -> models.ReactionAnnotation:
    return await call.app[REACTIONS].delete(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/commentannotations/reactions/add",
        add_reaction,
        models.Reaction,
        models.ReactionAnnotation,
        user_tokens=True,
        message="Reaction added successfully.",
        summary="React to a comment with an icon",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/reactions/delete",
        delete_reaction,
        models.Reaction,
        models.ReactionAnnotation,
        user_tokens=True,
        message="Reaction deleted successfully.",
        summary="Take back a reaction to a comment",
        tags=("comments",),
    ),
]
