"""The URL map of ask: /v2/memory/ask."""

from __future__ import annotations

from redline.envelope import Endpoint, Style, Tier
from redline.memory.app_keys import ASK
from redline.memory.ask.service import AskService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/memory/ask",
        ASK,
        AskService.ask,
        style=Style.PLAIN,
        tier=Tier.SEARCH,
        summary="An answer grounded in past decisions and knowledge, with its citations",
        tags=("memory",),
    ),
]
