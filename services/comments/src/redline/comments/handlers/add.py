"""HTTP handlers of adding annotations and comments."""

from __future__ import annotations

from redline.comments.app_keys import ADD_SERVICE
from redline.comments.models import add as models
from redline.envelope import Call


async def add_annotations(call: Call, request: models.AddAnnotations) -> models.AddedAnnotations:
    return await call.app[ADD_SERVICE].add_annotations(call.api_key, request)


async def add_comments(call: Call, request: models.AddComments) -> list[int]:
    return await call.app[ADD_SERVICE].add_comments(call.api_key, request)
