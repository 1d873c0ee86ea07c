"""The URL map of judgments: /v2/memory/search and /v2/memory/judgments/query."""

from __future__ import annotations

from redline.envelope import Endpoint, Style, Tier
from redline.memory.app_keys import JUDGMENTS
from redline.memory.judgments.service import JudgmentService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/memory/search",
        JUDGMENTS,
        JudgmentService.search,
        style=Style.PLAIN,
        tier=Tier.SEARCH,
        summary="Past review decisions closest in meaning to a query, in a scope",
        tags=("memory",),
    ),
    Endpoint.of(
        "/v2/memory/judgments/query",
        JUDGMENTS,
        JudgmentService.query,
        style=Style.PLAIN,
        summary="Judgments by their fields, newest first (no vectors)",
        tags=("memory",),
    ),
]
