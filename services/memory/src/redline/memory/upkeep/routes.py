"""The URL map of the operator calls."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style, Tier
from redline.memory.app_keys import UPKEEP
from redline.memory.upkeep import models


async def trigger(call: Call, request: models.TriggerConsolidation) -> models.Consolidated:
    return await call.app[UPKEEP].consolidate(call.api_key, request)


async def seed(call: Call, request: models.SeedActiveApiKeys) -> models.Seeded:
    return await call.app[UPKEEP].seed(call.api_key, request)


async def backfill(call: Call, request: models.BackfillJudgments) -> models.Backfilled:
    return await call.app[UPKEEP].backfill(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/memory/consolidation/trigger",
        trigger,
        models.TriggerConsolidation,
        models.Consolidated,
        style=Style.PLAIN,
        tier=Tier.INGEST,
        summary="Merge the key's converged pattern groups and run its alert check now",
        tags=("memory",),
    ),
    Endpoint(
        "/v2/memory/consolidation/seed-active-api-keys",
        seed,
        models.SeedActiveApiKeys,
        models.Seeded,
        style=Style.PLAIN,
        tier=Tier.INGEST,
        summary="Nothing to seed: active keys are found by the periodic check",
        tags=("memory",),
    ),
    Endpoint(
        "/v2/memory/backfill/judgments",
        backfill,
        models.BackfillJudgments,
        models.Backfilled,
        style=Style.PLAIN,
        tier=Tier.INGEST,
        summary="Nothing to backfill: judgments are recorded as decisions happen",
        tags=("memory",),
    ),
]
