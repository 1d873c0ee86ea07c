"""Request and answer of /v2/memory/suggest."""

from __future__ import annotations

from typing import Literal

import msgspec

from redline.envelope import Request
from redline.memory.judgments.models import Id, Query, Scope


class Suggest(Request):
    query: Query
    organizationId: Id | None = None
    # Only with organizationId; alone it is ignored, as the reference says.
    documentId: Id | None = None


class Suggestion(msgspec.Struct):
    recommendation: Literal["approve", "reject"]
    confidence: float
    basedOn: int
    scope: Scope
    scopeLabel: Literal["This document", "This organization", "All content"]
    topReasons: list[str]
    uniqueReviewers: int
    caveats: list[str]


class Suggestions(msgspec.Struct):
    primary: Suggestion | None
    conflict: Suggestion | None
