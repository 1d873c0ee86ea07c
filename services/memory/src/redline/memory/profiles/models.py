"""Request and answer of /v2/memory/profiles/get."""

from __future__ import annotations

import msgspec

from redline.envelope import Request
from redline.memory.judgments.models import Id


class GetProfile(Request):
    # The hosted product answers null without it, and so does Redline.
    targetUserId: Id | None = None


class Flag(msgspec.Struct):
    issue: str
    count: int


class OrganizationShare(msgspec.Struct):
    organizationId: str
    clientOrganizationId: str
    judgments: int
    approvals: int
    approvalRate: float


class EvolvedStandard(msgspec.Struct):
    topic: str
    shiftDate: int
    oldPattern: str
    newPattern: str


class Profile(msgspec.Struct, omit_defaults=True):
    userId: str
    name: str | None
    email: str | None
    totalJudgments: int
    approvalRate: float
    avgReviewTimeSeconds: int
    topFlags: list[Flag]
    contentTypes: list[str]
    peakHours: list[int]
    orgBreakdown: dict[str, OrganizationShare]
    lastActive: int
    twinEligible: bool
    twinAccuracy: float | None
    # Only for reviewers with enough judgments, and only when a standard moved.
    evolvedStandards: list[EvolvedStandard] | None = None
