"""Request and answer of /v2/memory/ask."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from redline.envelope import Request
from redline.memory.judgments.models import Filters, Id

Question = Annotated[str, Meta(min_length=1, max_length=4000)]


class AskMemory(Request):
    question: Question
    organizationId: Id | None = None
    documentId: Id | None = None
    orgId: Id | None = None
    docId: Id | None = None
    filters: Filters | None = None
    recencyDays: Annotated[int, Meta(ge=1, le=365)] | None = None


class Citation(msgspec.Struct, omit_defaults=True):
    recordId: str
    snippet: str
    sourceId: str | None = None


class Answer(msgspec.Struct):
    answer: str
    citations: list[Citation]
    confidence: float
    recordsSearched: int
