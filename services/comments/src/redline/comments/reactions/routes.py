"""The URL map of reactions: /v2/commentannotations/reactions/add and delete."""

from __future__ import annotations

from redline.comments.app_keys import REACTIONS
from redline.comments.reactions.service import ReactionService
from redline.envelope import Endpoint

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/commentannotations/reactions/add",
        REACTIONS,
        ReactionService.add,
        user_tokens=True,
        message="Reaction added successfully.",
        summary="React to a comment with an icon",
        tags=("comments",),
    ),
    Endpoint.of(
        "/v2/commentannotations/reactions/delete",
        REACTIONS,
        ReactionService.delete,
        user_tokens=True,
        message="Reaction deleted successfully.",
        summary="Take back a reaction to a comment",
        tags=("comments",),
    ),
]
