"""Suggesting a decision from precedent (the hosted product's /v2/memory/suggest).

The item is embedded and compared with what the judgments in scope reviewed (their `content`
space: an item is precedent for a like item, whatever was said about it); those at least
`PRECEDENT` similar are precedent. Each counts toward approve or reject as its decision says
(verdicts). The side with more records is the recommendation once it has `MIN_SUPPORT` of
them; when both sides have that many, the other side is the conflict.
"""

from __future__ import annotations

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import Unavailable
from redline.memory.embedding import EmbeddingFailed, EmbeddingRunner
from redline.memory.judgments import storage as judgments
from redline.memory.judgments.service import vector_filter
from redline.memory.judgments.verdicts import Side, side_of
from redline.memory.patterns.service import confidence
from redline.memory.suggest import models, storage
from redline.memory.vectors import JUDGMENTS, VectorStore, tenant_of
from redline.pg import Pool
from redline.proto.events import now_ms

# Cosine similarity at which a reviewed item is precedent for the one asked about. The default
# model compresses similarities: unrelated items met at 0.74 to 0.80 on the check, items of one
# kind (two wrinkle-cream claims, two rewrites of one clause) at 0.82 to 0.87.
PRECEDENT = 0.82
CANDIDATES = 50
MIN_SUPPORT = 2
TOP_REASONS = 3
DAY_MS = 86_400_000
KNOWLEDGE_RECENT_MS = 2 * DAY_MS
STALE_AGE_MS = 183 * DAY_MS
STALE_SHARE = 0.7
LABELS = {
    "document": "This document",
    "organization": "This organization",
    "apiKey": "All content",
}

Precedent = tuple[judgments.JudgmentRow, float]


def _reasons(side: list[Precedent]) -> list[str]:
    seen: dict[str, str] = {}
    for row, _ in sorted(side, key=lambda p: -p[1]):
        text = row.reasoning.strip()
        if text and text.casefold() not in seen:
            seen[text.casefold()] = text
    return list(seen.values())[:TOP_REASONS]


def _reviewers(side: list[Precedent]) -> int:
    people = {row.reviewer_id or (row.agent or {}).get("agentId") for row, _ in side}
    return len(people - {None})


def _stale(side: list[Precedent], now: int) -> bool:
    old = sum(1 for row, _ in side if row.created_at < now - STALE_AGE_MS)
    return old > STALE_SHARE * len(side)


class SuggestService:
    def __init__(self, pool: Pool, vectors: VectorStore, embedding: EmbeddingRunner) -> None:
        self._pool = pool
        self._vectors = vectors
        self._embedding = embedding

    async def suggest(
        self, principal: ApiKeyPrincipal, request: models.Suggest
    ) -> models.Suggestions:
        organization = request.organizationId
        document = request.documentId if organization else None
        scope = "document" if document else "organization" if organization else "apiKey"
        where = judgments.Where(
            api_key=principal.api_key, organization_id=organization, document_id=document
        )
        precedent = await self._precedent(principal, request.query, where)
        sides: dict[Side, list[Precedent]] = {"approve": [], "reject": []}
        for row, similarity in precedent:
            side = side_of(row.decision)
            if side is not None:
                sides[side].append((row, similarity))
        lead, other = sorted(
            sides, key=lambda s: (len(sides[s]), max((p[1] for p in sides[s]), default=0))
        )[::-1]
        if len(sides[lead]) < MIN_SUPPORT:
            return models.Suggestions(primary=None, conflict=None)
        split = len(sides[other]) >= MIN_SUPPORT
        total = len(sides[lead]) + len(sides[other])
        caveats = await self._caveats(principal, sides, lead, other, split)
        primary = self._suggestion(lead, sides[lead], total, scope, caveats)
        conflict = None
        if split:
            note = (
                f"Minority view: {len(sides[other])} records support {other}, "
                f"against {len(sides[lead])} that support {lead}."
            )
            conflict = self._suggestion(other, sides[other], total, scope, [note])
        return models.Suggestions(primary=primary, conflict=conflict)

    async def _precedent(
        self, principal: ApiKeyPrincipal, query: str, where: judgments.Where
    ) -> list[Precedent]:
        try:
            vector = await self._embedding.query(query, tenant=principal.api_key)
        except EmbeddingFailed as exc:
            raise Unavailable(f"The item could not be embedded ({exc}); try again.") from None
        found = vector_filter(tenant_of(principal), where)
        hits = await self._vectors.search(JUDGMENTS, "content", vector, found, CANDIDATES)
        best = {str(hit.payload.get("recordId")): hit.similarity for hit in hits}
        close = [record_id for record_id, s in best.items() if s >= PRECEDENT]
        async with self._pool.acquire() as conn:
            rows = await judgments.by_ids(conn, principal.api_key, close)
        return [(row, best[row.record_id]) for row in rows]

    async def _caveats(
        self,
        principal: ApiKeyPrincipal,
        sides: dict[Side, list[Precedent]],
        lead: Side,
        other: Side,
        split: bool,
    ) -> list[str]:
        now = now_ms()
        caveats = []
        if split:
            caveats.append(
                f"Conflicting precedent: {len(sides[lead])} records support {lead} "
                f"and {len(sides[other])} support {other}."
            )
        async with self._pool.acquire() as conn:
            changed = await storage.knowledge_changed_since(
                conn, principal.api_key, now - KNOWLEDGE_RECENT_MS
            )
        if changed:
            caveats.append("A knowledge source was updated in the last 48 hours.")
        if _stale(sides[lead], now):
            caveats.append("Stale pattern: >70% of supporting data is older than 6 months")
        return caveats

    @staticmethod
    def _suggestion(
        side: Side, records: list[Precedent], total: int, scope: str, caveats: list[str]
    ) -> models.Suggestion:
        return models.Suggestion(
            recommendation=side,
            confidence=confidence(len(records), total),
            basedOn=len(records),
            scope=scope,  # type: ignore[arg-type]
            scopeLabel=LABELS[scope],  # type: ignore[arg-type]
            topReasons=_reasons(records),
            uniqueReviewers=_reviewers(records),
            caveats=caveats,
        )
