"""The URL map of suggestions: /v2/commentannotations/suggestions/resolve."""

from __future__ import annotations

from redline.comments.app_keys import SUGGESTIONS
from redline.comments.shared.models import Annotation
from redline.comments.suggestions import models
from redline.envelope import Call, Endpoint


async def resolve_suggestion(call: Call, request: models.ResolveSuggestion) -> Annotation:
    return await call.app[SUGGESTIONS].resolve(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/commentannotations/suggestions/resolve",
        resolve_suggestion,
        models.ResolveSuggestion,
        Annotation,
        user_tokens=True,
        message="Suggestion resolved successfully.",
        summary="Accept or reject a pending suggestion",
        tags=("comments",),
    ),
]
