"""The URL map of patterns: /v2/memory/patterns/get."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style
from redline.memory.app_keys import PATTERNS
from redline.memory.patterns import models


async def get_patterns(call: Call, request: models.GetPatterns) -> list[models.Pattern]:
    return await call.app[PATTERNS].get(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/memory/patterns/get",
        get_patterns,
        models.GetPatterns,
        list[models.Pattern],
        style=Style.PLAIN,
        summary="How reviewers tend to decide on similar things, most recently updated first",
        tags=("memory",),
    ),
]
