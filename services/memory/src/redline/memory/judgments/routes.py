"""The URL map of judgments: /v2/memory/search and /v2/memory/judgments/query."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style, Tier
from redline.memory.app_keys import JUDGMENTS
from redline.memory.judgments import models


async def search(call: Call, request: models.SearchJudgments) -> models.JudgmentSearchResults:
    return await call.app[JUDGMENTS].search(call.api_key, request)


async def query(call: Call, request: models.QueryJudgments) -> models.JudgmentQueryResults:
    return await call.app[JUDGMENTS].query(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/memory/search",
        search,
        models.SearchJudgments,
        models.JudgmentSearchResults,
        style=Style.PLAIN,
        tier=Tier.SEARCH,
        summary="Past review decisions closest in meaning to a query, in a scope",
        tags=("memory",),
    ),
    Endpoint(
        "/v2/memory/judgments/query",
        query,
        models.QueryJudgments,
        models.JudgmentQueryResults,
        style=Style.PLAIN,
        summary="Judgments by their fields, newest first (no vectors)",
        tags=("memory",),
    ),
]
