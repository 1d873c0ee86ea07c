"""Request and answer of /v2/memory/stats/get."""

from __future__ import annotations

import msgspec

from redline.envelope import Request


class GetStats(Request):
    pass


class Stats(msgspec.Struct):
    # Capped as the hosted product caps them: a value at its ceiling means at least that many.
    totalActivities: int
    totalProfiles: int
    totalPatterns: int
    # Exact.
    totalKnowledgeSources: int
