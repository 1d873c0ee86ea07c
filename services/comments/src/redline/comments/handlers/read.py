"""HTTP handlers of the read endpoints: the caller and the decoded request in, the answer out."""

from __future__ import annotations

from typing import Any

from redline.comments.app_keys import READ
from redline.comments.models import read as models
from redline.envelope import Call, Reply, paged


async def get_annotations(call: Call, request: models.GetAnnotations) -> Reply[Any]:
    data, next_token = await call.app[READ].get(call.api_key, request)
    return paged(data, next_token)


async def get_comments(call: Call, request: models.GetComments) -> list[models.CommentOut | None]:
    return await call.app[READ].comments(call.api_key, request)


async def count_annotations(
    call: Call, request: models.CountAnnotations
) -> dict[str, models.DocumentCount]:
    return await call.app[READ].count(call.api_key, request)
