"""Requests and answers of /v2/memory/search and /v2/memory/judgments/query.

The hosted product's SDK passes `filters` through as the caller built it, nulls included, so
every filter field also takes null (meaning: not set).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from redline.envelope import Request

Id = Annotated[str, Meta(min_length=1, max_length=256)]
Query = Annotated[str, Meta(min_length=1, max_length=4000)]
Decision = Annotated[str, Meta(min_length=1, max_length=64)]
ContentType = Annotated[str, Meta(min_length=1, max_length=256)]
JudgeType = Literal["human", "agent"]
Scope = Literal["document", "organization", "apiKey"]
EmbeddingType = Literal["review", "content"]
# ISO 8601 text or epoch milliseconds.
Instant = Annotated[str, Meta(min_length=1, max_length=64)] | Annotated[int, Meta(ge=0)]


class DateRange(Request):
    start: Instant
    end: Instant


class Filters(Request):
    decision: Decision | None = None
    judgeType: JudgeType | None = None
    contentType: ContentType | None = None
    reviewerId: Id | None = None
    annotationId: Id | None = None
    dateRange: DateRange | None = None
    excludeDocumentIds: Annotated[list[Id], Meta(min_length=1, max_length=20)] | None = None


class SearchJudgments(Request):
    __openapi_rule__ = (
        "scope organization or document needs organizationId (or orgId); scope document needs "
        "documentId (or docId) unless filters.annotationId is given; filters.annotationId needs "
        "organizationId (or orgId)."
    )

    query: Query
    embeddingType: EmbeddingType = "review"
    scope: Scope | None = None
    organizationId: Id | None = None
    documentId: Id | None = None
    # Aliases the hosted product accepts on search.
    orgId: Id | None = None
    docId: Id | None = None
    limit: Annotated[int, Meta(ge=1, le=50)] = 10
    filters: Filters | None = None
    recencyDays: Annotated[int, Meta(ge=1, le=365)] | None = None


class JudgmentResult(msgspec.Struct):
    recordId: str
    reasoning: str
    decision: str
    confidence: float
    actionUser: dict[str, Any]
    createdAt: int
    similarity: float
    scope: str
    agent: dict[str, Any] | None


class JudgmentSearchResults(msgspec.Struct):
    results: list[JudgmentResult]
    totalInScope: int
    searchLatencyMs: int


class QueryJudgments(Request):
    __openapi_requires__ = (("annotationId", "organizationId"),)

    organizationId: Id | None = None
    documentId: Id | None = None
    decision: Decision | None = None
    judgeType: JudgeType | None = None
    contentType: ContentType | None = None
    reviewerId: Id | None = None
    annotationId: Id | None = None
    limit: Annotated[int, Meta(ge=1, le=100)] = 20


class JudgmentItem(msgspec.Struct):
    recordId: str
    reasoning: str
    decision: str
    confidence: float
    judgeType: str
    contentType: str | None
    actionUser: dict[str, Any]
    createdAt: int
    organizationId: str | None
    documentId: str | None
    agent: dict[str, Any] | None


class JudgmentQueryResults(msgspec.Struct):
    results: list[JudgmentItem]
    total: int
