"""Searching and querying judgments.

Scope: the ids given decide it (both → `document`, an organization → `organization`, none →
`apiKey`); a `documentId` without an organization is ignored, as the reference says. An explicit
`scope` narrows what the ids say and needs the ids it names. Filters are applied inside the
vector search, so a selective filter still gets `limit` results when there are that many.
"""

from __future__ import annotations

import datetime as dt
import time

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.memory.embedding import EmbeddingFailed, EmbeddingRunner
from redline.memory.judgments import models, storage
from redline.memory.vectors import JUDGMENTS, Tenant, VectorFilter, VectorStore, tenant_of
from redline.pg import Pool
from redline.proto.events import now_ms

DAY_MS = 86_400_000


def to_ms(value: str | int, path: str) -> int:
    if isinstance(value, int):
        return value
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidArgument.field(path, "not an ISO 8601 time or epoch milliseconds") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return int(parsed.timestamp() * 1000)


def recency_window(days: int, now_ms: int) -> tuple[int, int]:
    """The last `days` complete UTC days, ending where the current UTC day starts."""
    today = now_ms - now_ms % DAY_MS
    return today - days * DAY_MS, today


class Resolved:
    """What a search or query reads: its scope and the conditions on judgments."""

    def __init__(self, scope: str, where: storage.Where) -> None:
        self.scope = scope
        self.where = where


def _scope(
    request: models.SearchJudgments, annotation_id: str | None
) -> tuple[str, str | None, str | None]:
    organization = request.organizationId or request.orgId
    document = (request.documentId or request.docId) if organization else None
    scope = request.scope
    if scope is None:
        return (
            ("document" if document else "organization" if organization else "apiKey"),
            (organization),
            document,
        )
    if scope == "apiKey":
        return scope, None, None
    if organization is None:
        raise InvalidArgument.field("data.organizationId", f"scope {scope} needs organizationId")
    if scope == "organization":
        return scope, organization, None
    if document is None and annotation_id is None:
        raise InvalidArgument.field("data.documentId", "scope document needs documentId")
    return scope, organization, document


def resolve_search(
    principal: ApiKeyPrincipal, request: models.SearchJudgments, now_ms: int
) -> Resolved:
    filters = request.filters or models.Filters()
    scope, organization, document = _scope(request, filters.annotationId)
    if filters.annotationId is not None and organization is None:
        raise InvalidArgument.field(
            "data.filters.annotationId", "annotationId requires organizationId"
        )
    created_from = created_before = None
    if filters.dateRange is not None:
        created_from = to_ms(filters.dateRange.start, "data.filters.dateRange.start")
        end = to_ms(filters.dateRange.end, "data.filters.dateRange.end")
        if created_from > end:
            raise InvalidArgument.field(
                "data.filters.dateRange", "start must not be after end", "out_of_range"
            )
        created_before = end + 1
    if request.recencyDays is not None:
        created_from, created_before = recency_window(request.recencyDays, now_ms)
    where = storage.Where(
        api_key=principal.api_key,
        organization_id=organization,
        document_id=document,
        annotation_id=filters.annotationId,
        decision=filters.decision,
        judge_type=filters.judgeType,
        content_type=filters.contentType,
        reviewer_id=filters.reviewerId,
        created_from=created_from,
        created_before=created_before,
        exclude_document_ids=filters.excludeDocumentIds,
    )
    return Resolved(scope, where)


def vector_filter(tenant: Tenant, where: storage.Where) -> VectorFilter:
    named = {
        "organizationId": where.organization_id,
        "documentId": where.document_id,
        "annotationId": where.annotation_id,
        "decision": where.decision,
        "judgeType": where.judge_type,
        "contentType": where.content_type,
        "reviewerId": where.reviewer_id,
    }
    between = {}
    if where.created_from is not None or where.created_before is not None:
        high = None if where.created_before is None else where.created_before - 1
        between["createdAt"] = (where.created_from, high)
    return VectorFilter(
        tenant=tenant,
        equals={k: v for k, v in named.items() if v is not None},
        none_of={"documentId": where.exclude_document_ids or []},
        between=between,
    )


def _result(row: storage.JudgmentRow, similarity: float, scope: str) -> models.JudgmentResult:
    return models.JudgmentResult(
        recordId=row.record_id,
        reasoning=row.reasoning,
        decision=row.decision,
        confidence=row.confidence,
        actionUser=row.action_user or {},
        createdAt=row.created_at,
        similarity=round(similarity, 6),
        scope=scope,
        agent=row.agent,
    )


class JudgmentService:
    def __init__(self, pool: Pool, vectors: VectorStore, embedding: EmbeddingRunner) -> None:
        self._pool = pool
        self._vectors = vectors
        self._embedding = embedding

    async def search(
        self, principal: ApiKeyPrincipal, request: models.SearchJudgments
    ) -> models.JudgmentSearchResults:
        started = time.perf_counter()
        resolved = resolve_search(principal, request, now_ms())
        where = resolved.where
        async with self._pool.acquire() as conn:
            in_scope = await storage.count(conn, where)
            if where.annotation_id is not None:
                # One thread read directly, oldest first.
                rows = await storage.select(conn, where, request.limit, oldest_first=True)
            elif request.recencyDays is not None:
                rows = await storage.select(conn, where, request.limit)
        if where.annotation_id is not None or request.recencyDays is not None:
            scored = [(row, 1.0) for row in rows]
        else:
            scored = await self._nearest(principal, request, where)
        return models.JudgmentSearchResults(
            results=[_result(row, sim, resolved.scope) for row, sim in scored],
            totalInScope=in_scope,
            searchLatencyMs=int((time.perf_counter() - started) * 1000),
        )

    async def _nearest(
        self,
        principal: ApiKeyPrincipal,
        request: models.SearchJudgments,
        where: storage.Where,
    ) -> list[tuple[storage.JudgmentRow, float]]:
        try:
            query = await self._embedding.query(request.query, tenant=principal.api_key)
        except EmbeddingFailed:
            # Without a query vector, the most recent judgments in scope.
            async with self._pool.acquire() as conn:
                rows = await storage.select(conn, where, request.limit)
            return [(row, 0.0) for row in rows]
        where_vectors = vector_filter(tenant_of(principal), where)
        hits = await self._vectors.search(
            JUDGMENTS, request.embeddingType, query, where_vectors, request.limit
        )
        ids = [str(h.payload.get("recordId")) for h in hits]
        async with self._pool.acquire() as conn:
            found = {r.record_id: r for r in await storage.by_ids(conn, principal.api_key, ids)}
        return [(found[i], h.similarity) for i, h in zip(ids, hits, strict=True) if i in found]

    async def query(
        self, principal: ApiKeyPrincipal, request: models.QueryJudgments
    ) -> models.JudgmentQueryResults:
        organization = request.organizationId
        if request.annotationId is not None and organization is None:
            raise InvalidArgument.field("data.annotationId", "annotationId requires organizationId")
        where = storage.Where(
            api_key=principal.api_key,
            organization_id=organization,
            document_id=request.documentId if organization else None,
            annotation_id=request.annotationId,
            decision=request.decision,
            judge_type=request.judgeType,
            content_type=request.contentType,
            reviewer_id=request.reviewerId,
        )
        async with self._pool.acquire() as conn:
            rows = await storage.select(conn, where, request.limit)
        if request.annotationId is not None:
            rows.reverse()  # the newest `limit` of one thread, in the order they happened
        items = [
            models.JudgmentItem(
                recordId=r.record_id,
                reasoning=r.reasoning,
                decision=r.decision,
                confidence=r.confidence,
                judgeType=r.judge_type,
                contentType=r.content_type,
                actionUser=r.action_user or {},
                createdAt=r.created_at,
                organizationId=r.organization_id,
                documentId=r.document_id,
                agent=r.agent,
            )
            for r in rows
        ]
        return models.JudgmentQueryResults(results=items, total=len(items))
