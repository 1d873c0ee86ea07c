"""The URL map of stats: /v2/memory/stats/get."""

from __future__ import annotations

from redline.envelope import Endpoint, Style
from redline.memory.app_keys import STATS
from redline.memory.stats.service import StatsService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/memory/stats/get",
        STATS,
        StatsService.get,
        style=Style.PLAIN,
        summary="Counts of the key's judgments, reviewers, patterns and knowledge sources",
        tags=("memory",),
    ),
]
