"""The URL map of suggest: /v2/memory/suggest."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style, Tier
from redline.memory.app_keys import SUGGEST
from redline.memory.suggest import models


async def suggest(call: Call, request: models.Suggest) -> models.Suggestions:
    return await call.app[SUGGEST].suggest(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/memory/suggest",
        suggest,
        models.Suggest,
        models.Suggestions,
        style=Style.PLAIN,
        tier=Tier.SEARCH,
        summary="A suggested decision grounded in similar past judgments, and a conflicting one",
        tags=("memory",),
    ),
]
