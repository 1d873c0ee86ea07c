"""A reviewer's profile, computed from their judgments when asked.

- `approvalRate`: approvals among the judgments that approve or reject (verdicts);
- `topFlags`: the content types (for agent findings, their issue type) the reviewer rejected
  most, with how often;
- `contentTypes`: the content types they judged, most judged first;
- `peakHours`: the (UTC) hours of the day in which they decided most, in hour order;
- `orgBreakdown`: per organization (Redline keeps one organization id, so both id fields
  carry it);
- `twinEligible` from 50 judgments; Redline has no review twin, so `twinAccuracy` is null;
- `evolvedStandards`, from 50 judgments: content types whose approval rate moved by 25 points
  or more between the last 90 days and the 90 to 365 days before.
"""

from __future__ import annotations

from redline.envelope import ApiKeyPrincipal
from redline.memory.judgments.verdicts import approval_rate
from redline.memory.profiles import models, storage
from redline.pg import Pool
from redline.proto.events import now_ms

DAY_MS = 86_400_000
TWIN_ELIGIBLE = 50
SHIFT = 0.25
# Decisions each window needs before its approval rate is compared.
MIN_WINDOW = 3
TOP_FLAGS = 5
CONTENT_TYPES = 20
PEAK_HOURS = 3


def _rate_text(approvals: int, rejections: int, when: str) -> str:
    decided = approvals + rejections
    share = round(100 * approval_rate(approvals, rejections))
    return f"Approved {share}% ({approvals} of {decided}) {when}."


def evolved(rows: list[storage.ByContentType], recent_from: int) -> list[models.EvolvedStandard]:
    shifts = []
    for row in rows:
        recent = (row.recent_approvals, row.recent_rejections)
        older = (row.older_approvals, row.older_rejections)
        if sum(recent) < MIN_WINDOW or sum(older) < MIN_WINDOW:
            continue
        if abs(approval_rate(*recent) - approval_rate(*older)) < SHIFT:
            continue
        shifts.append(
            models.EvolvedStandard(
                topic=row.content_type,
                shiftDate=recent_from,
                oldPattern=_rate_text(*older, "from 365 to 90 days ago"),
                newPattern=_rate_text(*recent, "in the last 90 days"),
            )
        )
    return shifts


class ProfileService:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def get(
        self, principal: ApiKeyPrincipal, request: models.GetProfile
    ) -> models.Profile | None:
        reviewer = request.targetUserId
        if reviewer is None:
            return None
        now = now_ms()
        recent_from, older_from = now - 90 * DAY_MS, now - 365 * DAY_MS
        key = principal.api_key
        async with self._pool.acquire() as conn:
            totals = await storage.totals(conn, key, reviewer)
            if not totals.judgments:
                return None
            types = await storage.by_content_type(conn, key, reviewer, recent_from, older_from)
            organizations = await storage.by_organization(conn, key, reviewer)
            hours = await storage.busiest_hours(conn, key, reviewer, PEAK_HOURS)
        flagged = sorted((t for t in types if t.rejections), key=lambda t: -t.rejections)
        eligible = totals.judgments >= TWIN_ELIGIBLE
        return models.Profile(
            userId=reviewer,
            name=totals.name,
            email=totals.email,
            totalJudgments=totals.judgments,
            approvalRate=approval_rate(totals.approvals, totals.rejections),
            avgReviewTimeSeconds=0,
            topFlags=[models.Flag(t.content_type, t.rejections) for t in flagged[:TOP_FLAGS]],
            contentTypes=[t.content_type for t in types[:CONTENT_TYPES]],
            peakHours=sorted(hours),
            orgBreakdown={
                o.organization_id: models.OrganizationShare(
                    organizationId=o.organization_id,
                    clientOrganizationId=o.organization_id,
                    judgments=o.judgments,
                    approvals=o.approvals,
                    approvalRate=approval_rate(o.approvals, o.rejections),
                )
                for o in organizations
            },
            lastActive=totals.last_active or 0,
            twinEligible=eligible,
            twinAccuracy=None,
            evolvedStandards=(evolved(types, recent_from) or None) if eligible else None,
        )
