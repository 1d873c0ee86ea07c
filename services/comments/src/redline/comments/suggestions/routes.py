"""The URL map of suggestions: /v2/commentannotations/suggestions/resolve."""

from __future__ import annotations

from redline.comments.app_keys import SUGGESTIONS
from redline.comments.suggestions.service import SuggestionService
from redline.envelope import Endpoint

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/commentannotations/suggestions/resolve",
        SUGGESTIONS,
        SuggestionService.resolve,
        user_tokens=True,
        message="Suggestion resolved successfully.",
        summary="Accept or reject a pending suggestion",
        tags=("comments",),
    ),
]
