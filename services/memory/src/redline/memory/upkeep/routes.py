"""The URL map of the operator calls."""

from __future__ import annotations

from redline.envelope import Endpoint, Style, Tier
from redline.memory.app_keys import UPKEEP
from redline.memory.upkeep.service import UpkeepService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/memory/consolidation/trigger",
        UPKEEP,
        UpkeepService.consolidate,
        style=Style.PLAIN,
        tier=Tier.INGEST,
        summary="Merge the key's converged pattern groups and run its alert check now",
        tags=("memory",),
    ),
    Endpoint.of(
        "/v2/memory/consolidation/seed-active-api-keys",
        UPKEEP,
        UpkeepService.seed,
        style=Style.PLAIN,
        tier=Tier.INGEST,
        summary="Nothing to seed: active keys are found by the periodic check",
        tags=("memory",),
    ),
    Endpoint.of(
        "/v2/memory/backfill/judgments",
        UPKEEP,
        UpkeepService.backfill,
        style=Style.PLAIN,
        tier=Tier.INGEST,
        summary="Nothing to backfill: judgments are recorded as decisions happen",
        tags=("memory",),
    ),
]
