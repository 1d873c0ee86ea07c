"""The URL map of ask: /v2/memory/ask."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style, Tier
from redline.memory.app_keys import ASK
from redline.memory.ask import models


async def ask(call: Call, request: models.AskMemory) -> models.Answer:
    return await call.app[ASK].ask(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/memory/ask",
        ask,
        models.AskMemory,
        models.Answer,
        style=Style.PLAIN,
        tier=Tier.SEARCH,
        summary="An answer grounded in past decisions and knowledge, with its citations",
        tags=("memory",),
    ),
]
