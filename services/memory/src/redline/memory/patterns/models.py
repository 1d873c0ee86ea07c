"""Request and answer of /v2/memory/patterns/get."""

from __future__ import annotations

from typing import Literal

import msgspec

from redline.envelope import Request


class GetPatterns(Request):
    pass


class Pattern(msgspec.Struct):
    scope: Literal["apiKey", "org"]
    organizationId: str | None
    description: str
    confidence: float
    sourceCount: int
    contentType: str | None
    category: str | None
    discoveredAt: int
    updatedAt: int
    enforcementRate: float
    """The majority decision's share of the group's judgments."""
    uniqueReviewers: int
    topSourceRecordIds: list[str]
