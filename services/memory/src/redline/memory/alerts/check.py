"""What raises an alert: the check of one key's judgments, run for every active key by a
periodic sweep (and for the caller's key by consolidation/trigger).

Two trends raise one:
- `anomaly` on `approvalRate`: the approval rate of the last 7 days fell at least 20 points
  below that of the last 30 days (with 10 decisions in 30 days and 5 in 7 days at least);
  `high` from a 40-point fall, else `medium`; dedup key `anomaly:approvalRate`;
- `emerging_standard` on `enforcementRate`: a pattern (patterns/get) first seen in the last 7
  days; `low`; dedup key `emerging_standard:<pattern id>`.
A trend raises once per rolling 7 days whatever became of its alert (a dismissed trend does not
come straight back), at most 3 alerts are raised per key per rolling 7 days (as the hosted
product caps them), and a key whose stored settings say `enabled: false` gets none.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

from redline.memory.alerts import storage
from redline.memory.judgments.verdicts import APPROVING, REJECTING, approval_rate
from redline.memory.patterns import storage as patterns
from redline.memory.patterns.service import MIN_GROUP, describe, enforcement_rate
from redline.pg import Connection, Pool
from redline.proto.events import now_ms

log = logging.getLogger("redline.memory.alerts")

DAY_MS = 86_400_000
WEEK_MS = 7 * DAY_MS
MAX_PER_WEEK = 3
BASELINE_DAYS, CURRENT_DAYS = 30, 7
MIN_BASELINE, MIN_CURRENT = 10, 5
DROP, SHARP_DROP = 0.20, 0.40
RATE_ACTION = (
    "Review recent rejections to identify if a new pattern or reviewer behavior is causing "
    "the decline."
)
STANDARD_ACTION = "Check whether this standard should be written into your review guidelines."


def _alert_id() -> str:
    return "alert_" + secrets.token_urlsafe(12)


async def _approval_drop(
    conn: Connection, api_key: str, workspace_id: str, now: int
) -> storage.AlertRow | None:
    approving, rejecting = list(APPROVING), list(REJECTING)
    month = await storage.decided(conn, api_key, now - BASELINE_DAYS * DAY_MS, approving, rejecting)
    week = await storage.decided(conn, api_key, now - CURRENT_DAYS * DAY_MS, approving, rejecting)
    if month.approvals + month.rejections < MIN_BASELINE:
        return None
    if week.approvals + week.rejections < MIN_CURRENT:
        return None
    baseline = approval_rate(month.approvals, month.rejections)
    current = approval_rate(week.approvals, week.rejections)
    drop = baseline - current
    if drop < DROP:
        return None
    return storage.AlertRow(
        api_key=api_key,
        alert_id=_alert_id(),
        workspace_id=workspace_id,
        created_at=now,
        alert_type="anomaly",
        severity="high" if drop >= SHARP_DROP else "medium",
        title="Approval rate dropped significantly",
        description=(
            f"Approval rate fell from {baseline:.0%} (30-day) to {current:.0%} (7-day), "
            f"a {round(drop * 100)}-point drop."
        ),
        evidence={
            "metric": "approvalRate",
            "baseline": baseline,
            "current": current,
            "window": "7d vs 30d",
        },
        suggested_action=RATE_ACTION,
        dedup_key="anomaly:approvalRate",
    )


async def _emerging_standards(
    conn: Connection, api_key: str, workspace_id: str, now: int
) -> list[storage.AlertRow]:
    alerts = []
    for group in await patterns.newest(conn, api_key, MIN_GROUP, 100):
        described = describe(group)
        if described is None or group.discovered_at < now - WEEK_MS:
            continue
        text, _ = described
        alerts.append(
            storage.AlertRow(
                api_key=api_key,
                alert_id=_alert_id(),
                workspace_id=workspace_id,
                created_at=now,
                alert_type="emerging_standard",
                severity="low",
                title="A new review standard is emerging",
                description=text,
                evidence={
                    "metric": "enforcementRate",
                    "current": enforcement_rate(group),
                    "window": "7d",
                    "sourceRecordIds": group.record_ids,
                },
                suggested_action=STANDARD_ACTION,
                dedup_key=f"emerging_standard:{group.pattern_id}",
            )
        )
    return alerts


async def check_key(pool: Pool, api_key: str, workspace_id: str) -> int:
    """Raise the alerts the key's judgments call for now; how many were raised."""
    now = now_ms()
    async with pool.acquire() as conn, conn.transaction():
        await storage.lock_key(conn, api_key)
        if (await storage.config(conn, api_key)).get("enabled") is False:
            return 0
        recent = await storage.raised_since(conn, api_key, now - WEEK_MS)
        room = MAX_PER_WEEK - len(recent)
        if room <= 0:
            return 0
        candidates = [await _approval_drop(conn, api_key, workspace_id, now)]
        candidates += await _emerging_standards(conn, api_key, workspace_id, now)
        fresh = [a for a in candidates if a is not None and a.dedup_key not in recent][:room]
        # An alert of the trend still active from before stays the one alert of it.
        return sum([await storage.insert(conn, alert) for alert in fresh])


async def sweep(pool: Pool) -> int:
    """Check every key with judgments in the last 30 days (one replica at a time)."""
    raised = 0
    async with pool.acquire() as held:
        if not await storage.try_sweep_lock(held):
            return 0
        try:
            keys = await storage.active_keys(held, now_ms() - BASELINE_DAYS * DAY_MS)
            for api_key, workspace_id in keys:
                raised += await check_key(pool, api_key, workspace_id)
        finally:
            await storage.sweep_unlock(held)
    return raised


async def sweep_forever(pool: Pool, interval_s: float) -> None:
    while True:
        await asyncio.sleep(interval_s)
        try:
            raised = await sweep(pool)
        except Exception:
            log.exception("the alert check failed; it runs again next time")
            continue
        if raised:
            log.info("raised %d memory alerts", raised)
