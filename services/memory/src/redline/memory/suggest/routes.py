"""The URL map of suggest: /v2/memory/suggest."""

from __future__ import annotations

from redline.envelope import Endpoint, Style, Tier
from redline.memory.app_keys import SUGGEST
from redline.memory.suggest.service import SuggestService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/memory/suggest",
        SUGGEST,
        SuggestService.suggest,
        style=Style.PLAIN,
        tier=Tier.SEARCH,
        summary="A suggested decision grounded in similar past judgments, and a conflicting one",
        tags=("memory",),
    ),
]
