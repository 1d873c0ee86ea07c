"""HTTP handlers of the endpoints that change annotations: the caller and the decoded request in,
the service's answer out."""

from __future__ import annotations

from typing import Any

from redline.comments.models import change as models
from redline.comments.service import comment_edit, delete, reactions, suggestions, update
from redline.comments.service.writer import Writer
from redline.envelope import Call
from redline.runtime.access import ACCESS_CLIENT
from redline.runtime.resources import POOL


def _writer(call: Call) -> Writer:
    return Writer(call.app[POOL], call.app[ACCESS_CLIENT], call.api_key)


async def update_annotations(
    call: Call, request: models.UpdateAnnotations
) -> dict[str, models.ItemResult]:
    return await update.update(_writer(call), request)


async def delete_annotations(
    call: Call, request: models.DeleteAnnotations
) -> dict[str, models.ItemResult]:
    return await delete.delete_annotations(_writer(call), request)


async def delete_comments(
    call: Call, request: models.DeleteComments
) -> dict[str, models.CommentResult]:
    return await delete.delete_comments(_writer(call), request)


async def update_comment(call: Call, request: models.UpdateComment) -> models.CommentResult:
    return await comment_edit.update_comment(_writer(call), request)


async def add_reaction(call: Call, request: models.Reaction) -> dict[str, Any]:
    return await reactions.add_reaction(_writer(call), request)


async def delete_reaction(call: Call, request: models.Reaction) -> dict[str, Any]:
    return await reactions.delete_reaction(_writer(call), request)


async def resolve_suggestion(call: Call, request: models.ResolveSuggestion) -> dict[str, Any]:
    return await suggestions.resolve(_writer(call), request)
