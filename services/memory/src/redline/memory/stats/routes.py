"""The URL map of stats: /v2/memory/stats/get."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style
from redline.memory.app_keys import STATS
from redline.memory.stats import models


async def get_stats(call: Call, request: models.GetStats) -> models.Stats:
    return await call.app[STATS].get(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/memory/stats/get",
        get_stats,
        models.GetStats,
        models.Stats,
        style=Style.PLAIN,
        summary="Counts of the key's judgments, reviewers, patterns and knowledge sources",
        tags=("memory",),
    ),
]
