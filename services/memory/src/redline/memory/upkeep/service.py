"""What the hosted product's operator calls mean for a self-hosted install.

- consolidation/trigger: run now, for the caller's key, what memory otherwise does on its own:
  merge pattern groups that have come together, and the alert check.
- consolidation/seed-active-api-keys: the periodic alert check finds the keys with recent
  judgments by itself, so there is nothing to seed: it answers so, with 0.
- backfill/judgments: judgments are recorded from domain events as decisions happen, so there
  is no history outside memory to import: it answers success with zero counts, after checking
  the request as the hosted product would (a time range that ends before it starts, or
  `allApiKeysInStore` without `storeDbId`, is INVALID_ARGUMENT).
"""

from __future__ import annotations

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.memory.alerts.check import check_key
from redline.memory.patterns.service import PatternService
from redline.memory.upkeep import models
from redline.pg import Pool


class UpkeepService:
    def __init__(self, pool: Pool, patterns: PatternService) -> None:
        self._pool = pool
        self._patterns = patterns

    async def consolidate(
        self, principal: ApiKeyPrincipal, request: models.TriggerConsolidation
    ) -> models.Consolidated:
        merged = await self._patterns.consolidate(principal.api_key)
        raised = await check_key(self._pool, principal.api_key, principal.workspace_id)
        return models.Consolidated(success=True, patternsMerged=merged, alertsRaised=raised)

    async def seed(
        self, principal: ApiKeyPrincipal, request: models.SeedActiveApiKeys
    ) -> models.Seeded:
        return models.Seeded(
            success=True,
            seeded=0,
            message="Keys with recent judgments are checked on their own; nothing to seed.",
        )

    async def backfill(
        self, principal: ApiKeyPrincipal, request: models.BackfillJudgments
    ) -> models.Backfilled:
        if request.allApiKeysInStore and request.storeDbId is None:
            raise InvalidArgument.field("data.storeDbId", "allApiKeysInStore requires storeDbId")
        low, high = request.timestampLowerBoundMs, request.timestampUpperBoundMs
        if low is not None and high is not None and low > high:
            raise InvalidArgument.field(
                "data.timestampLowerBoundMs", "must not be after timestampUpperBoundMs"
            )
        return models.Backfilled(
            success=True,
            scanned=0,
            recorded=0,
            nextCursor=None,
            message="Judgments are recorded as decisions happen; there is nothing to backfill.",
        )
