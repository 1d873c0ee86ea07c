"""Memory's counts of a key, as the hosted product reports them.

Redline's memory is built from judgments, so the hosted product's "enriched activities" are the
key's judgments; its reviewer profiles are the distinct reviewers those judgments name (a
profile exists once a reviewer has one, see profiles); its patterns are what patterns/get
returns; its knowledge sources are every source of the key, whatever its status.
"""

from __future__ import annotations

from redline.envelope import ApiKeyPrincipal
from redline.memory.patterns.models import GetPatterns
from redline.memory.patterns.service import MAX_PATTERNS, PatternService
from redline.memory.stats import models, storage
from redline.pg import Pool

MAX_ACTIVITIES = 10_000
MAX_PROFILES = 500


class StatsService:
    def __init__(self, pool: Pool, patterns: PatternService) -> None:
        self._pool = pool
        self._patterns = patterns

    async def get(self, principal: ApiKeyPrincipal, request: models.GetStats) -> models.Stats:
        async with self._pool.acquire() as conn:
            judgments, reviewers, sources = await storage.counts(
                conn,
                principal.api_key,
                max_judgments=MAX_ACTIVITIES,
                max_reviewers=MAX_PROFILES,
            )
        patterns = await self._patterns.get(principal, GetPatterns())
        return models.Stats(
            totalActivities=judgments,
            totalProfiles=reviewers,
            totalPatterns=min(len(patterns), MAX_PATTERNS),
            totalKnowledgeSources=sources,
        )
