"""Requests and answers of the operator calls (the shapes the hosted product's SDK sends)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from redline.envelope import Request
from redline.memory.judgments.models import Id


class TriggerConsolidation(Request):
    # Redline keeps no cooldown between runs, so a forced run is a run.
    force: bool | None = None


class Consolidated(msgspec.Struct):
    success: bool
    patternsMerged: int
    alertsRaised: int


class SeedActiveApiKeys(Request):
    pass


class Seeded(msgspec.Struct):
    success: bool
    seeded: int
    message: str


class BackfillJudgments(Request):
    __openapi_requires__ = (("allApiKeysInStore", "storeDbId"),)

    storeDbId: Id | None = None
    resumeFrom: Annotated[str, Meta(max_length=1024)] | None = None
    batchSize: Annotated[int, Meta(ge=1, le=1000)] | None = None
    timestampLowerBoundMs: Annotated[int, Meta(ge=0)] | None = None
    timestampUpperBoundMs: Annotated[int, Meta(ge=0)] | None = None
    force: bool | None = None
    allApiKeysInStore: bool | None = None
    migrateOldSdk: bool | None = None


class Backfilled(msgspec.Struct):
    success: bool
    scanned: int
    recorded: int
    nextCursor: str | None
    message: str
