"""Patterns: how reviewers tend to decide on similar things.

Recomputed incrementally: each judgment, as it is recorded and in the same transaction, joins
the group of its key, organization and content type whose centroid is closest to its `review`
vector (if close enough), or starts one. A group of at least `MIN_GROUP` judgments whose most
common decision holds at least `MIN_MAJORITY` of it is a pattern, described in words from its
members, with a confidence of the majority's share weighted by the group's size.
"""

from __future__ import annotations

import secrets
from collections import Counter

import numpy as np
import numpy.typing as npt

from redline.envelope import ApiKeyPrincipal
from redline.memory.judgments.storage import JudgmentRow
from redline.memory.patterns import models, storage
from redline.pg import Connection, Pool

# Cosine similarity to a group's centroid above which a judgment joins it. Paraphrases of one
# reason sit above it in the review space of the default model (0.90 to 0.94 here), other
# reasons of the same decision mostly below (0.86 to 0.89).
JOIN_SIMILARITY = 0.90
MIN_GROUP = 3
MIN_MAJORITY = 0.6
MAX_PATTERNS = 100
KEPT_RECORD_IDS = 5
VERBS = {
    "approved": "approve",
    "rejected": "reject",
    "resolve": "resolve",
    "comment": "comment on",
}


def confidence(majority: int, size: int) -> float:
    """The majority's share, damped for small groups (3 of 3 counts less than 30 of 30)."""
    return round(majority / size * size / (size + 2), 4)


def enforcement_rate(group: storage.GroupRow) -> float:
    """How consistently the group's standard is applied: the majority decision's share."""
    return round(max(group.decisions.values()) / group.size, 4)


def describe(group: storage.GroupRow) -> tuple[str, float] | None:
    """The plain-language description and confidence of a group, or None when it has no clear
    majority yet."""
    if group.size < MIN_GROUP:
        return None
    decision, count = Counter(group.decisions).most_common(1)[0]
    if count / group.size < MIN_MAJORITY:
        return None
    verb = VERBS.get(decision, f"decide {decision} on")
    subject = f"{group.content_type} items" if group.content_type else "items"
    text = f"Reviewers {verb} {subject} like “{group.representative}” ({count} of {group.size})"
    return text, confidence(count, group.size)


def _centroid(group: storage.GroupRow) -> npt.NDArray[np.float32]:
    return np.asarray(group.centroid, dtype=np.float32)


def _similarity(one: storage.GroupRow, other: storage.GroupRow) -> float:
    return float(_centroid(one) @ _centroid(other))


def _merge(into: storage.GroupRow, other: storage.GroupRow) -> None:
    total = _centroid(into) * into.size + _centroid(other) * other.size
    into.centroid = (total / max(float(np.linalg.norm(total)), 1e-12)).tolist()
    into.size += other.size
    for decision, count in other.decisions.items():
        into.decisions[decision] = into.decisions.get(decision, 0) + count
    into.reviewers += [r for r in other.reviewers if r not in into.reviewers]
    into.record_ids = (into.record_ids + other.record_ids)[:KEPT_RECORD_IDS]
    into.discovered_at = min(into.discovered_at, other.discovered_at)
    into.updated_at = max(into.updated_at, other.updated_at)


class PatternService:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def absorb(
        self, conn: Connection, judgment: JudgmentRow, review: npt.NDArray[np.float32]
    ) -> None:
        """Add a newly recorded judgment to its group (call in the recording transaction)."""
        await storage.lock_groups(conn, judgment.api_key)
        groups = await storage.groups(
            conn, judgment.api_key, judgment.organization_id, judgment.content_type
        )
        best, best_similarity = None, JOIN_SIMILARITY
        for group in groups:
            similarity = float(_centroid(group) @ review)
            if similarity >= best_similarity:
                best, best_similarity = group, similarity
        if best is None:
            best = storage.GroupRow(
                api_key=judgment.api_key,
                pattern_id="pat_" + secrets.token_urlsafe(12),
                workspace_id=judgment.workspace_id,
                organization_id=judgment.organization_id,
                content_type=judgment.content_type,
                centroid=[0.0] * len(review),
                size=0,
                decisions={},
                reviewers=[],
                record_ids=[],
                representative=judgment.reasoning or judgment.decision,
                discovered_at=judgment.created_at,
                updated_at=judgment.created_at,
            )
        self._join(best, judgment, review)
        # A group that has drifted close to another (two seeds of one reason) becomes one.
        for other in groups:
            if other.pattern_id != best.pattern_id and _similarity(best, other) >= JOIN_SIMILARITY:
                _merge(best, other)
                await storage.delete(conn, other.api_key, other.pattern_id)
        await storage.save(conn, best)

    @staticmethod
    def _join(
        group: storage.GroupRow, judgment: JudgmentRow, review: npt.NDArray[np.float32]
    ) -> None:
        total = _centroid(group) * group.size + review
        group.centroid = (total / max(float(np.linalg.norm(total)), 1e-12)).tolist()
        group.size += 1
        group.decisions[judgment.decision] = group.decisions.get(judgment.decision, 0) + 1
        if judgment.reviewer_id and judgment.reviewer_id not in group.reviewers:
            group.reviewers.append(judgment.reviewer_id)
        group.record_ids = [judgment.record_id, *group.record_ids][:KEPT_RECORD_IDS]
        group.updated_at = max(group.updated_at, judgment.created_at)

    async def consolidate(self, api_key: str) -> int:
        """Merge every two groups of one organization and content type whose centroids have
        come as close as a judgment must be to join (absorb only merges around the group a
        judgment joined); how many groups were merged away."""
        merged = 0
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.lock_groups(conn, api_key)
            kept: list[storage.GroupRow] = []
            for group in await storage.of_key(conn, api_key):
                into = next(
                    (
                        k
                        for k in kept
                        if (k.organization_id, k.content_type)
                        == (group.organization_id, group.content_type)
                        and _similarity(k, group) >= JOIN_SIMILARITY
                    ),
                    None,
                )
                if into is None:
                    kept.append(group)
                    continue
                _merge(into, group)
                await storage.delete(conn, api_key, group.pattern_id)
                await storage.save(conn, into)
                merged += 1
        return merged

    async def get(
        self, principal: ApiKeyPrincipal, request: models.GetPatterns
    ) -> list[models.Pattern]:
        async with self._pool.acquire() as conn:
            groups = await storage.newest(conn, principal.api_key, MIN_GROUP, MAX_PATTERNS * 4)
        patterns = []
        for group in groups:
            described = describe(group)
            if described is None:
                continue
            text, score = described
            patterns.append(
                models.Pattern(
                    scope="org" if group.organization_id else "apiKey",
                    organizationId=group.organization_id,
                    description=text,
                    confidence=score,
                    sourceCount=group.size,
                    contentType=group.content_type,
                    category=group.content_type,
                    discoveredAt=group.discovered_at,
                    updatedAt=group.updated_at,
                    enforcementRate=enforcement_rate(group),
                    uniqueReviewers=len(group.reviewers),
                    topSourceRecordIds=group.record_ids,
                )
            )
        return patterns[:MAX_PATTERNS]
