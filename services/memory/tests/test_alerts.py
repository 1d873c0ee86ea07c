"""What raises a memory alert: the check over a key's judgments and patterns in PostgreSQL."""

from __future__ import annotations

from redline.memory.alerts import storage as alerts
from redline.memory.alerts.check import check_key, sweep
from redline.memory.judgments import storage as judgments
from redline.memory.patterns import storage as patterns
from redline.pg import Pool
from redline.proto.events import now_ms

DAY_MS = 86_400_000
KEY, WORKSPACE = "key-1", "ws-1"


def _judgment(n: int, decision: str, days_ago: float, api_key: str = KEY) -> judgments.JudgmentRow:
    return judgments.JudgmentRow(
        api_key=api_key,
        record_id=f"jdg_{n}",
        workspace_id=WORKSPACE,
        organization_id="acme",
        document_id="d1",
        annotation_id=f"a{n}",
        decision=decision,
        reasoning="why",
        confidence=1.0,
        judge_type="human",
        content_type="claims",
        reviewer_id="carol",
        action_user={"userId": "carol"},
        agent=None,
        content="item",
        source_event="comments.comment_annotation.suggestion_reject",
        created_at=now_ms() - int(days_ago * DAY_MS),
    )


async def _record(pool: Pool, rows: list[judgments.JudgmentRow]) -> None:
    async with pool.acquire() as conn:
        for row in rows:
            assert await judgments.insert(conn, row)


async def _active(pool: Pool, api_key: str = KEY) -> list[alerts.AlertRow]:
    async with pool.acquire() as conn:
        return await alerts.active(conn, api_key, 50)


def _falling_approvals() -> list[judgments.JudgmentRow]:
    """Eight approvals of ten between 30 and 7 days ago, one of six in the last week."""
    older = [_judgment(n, "approved" if n < 8 else "rejected", 20) for n in range(10)]
    recent = [_judgment(10 + n, "approved" if n == 0 else "rejected", 2) for n in range(6)]
    return older + recent


def _pattern(n: int, days_ago: float) -> patterns.GroupRow:
    at = now_ms() - int(days_ago * DAY_MS)
    return patterns.GroupRow(
        api_key=KEY,
        pattern_id=f"pat_{n}",
        workspace_id=WORKSPACE,
        organization_id="acme",
        content_type=f"type-{n}",
        centroid=[1.0, 0.0],
        size=4,
        decisions={"rejected": 4},
        reviewers=["carol"],
        record_ids=[f"jdg_{n}"],
        representative=f"reason {n}",
        discovered_at=at,
        updated_at=at,
    )


async def test_a_falling_approval_rate_raises_one_alert(pool: Pool) -> None:
    await _record(pool, _falling_approvals())

    assert await check_key(pool, KEY, WORKSPACE) == 1
    assert await check_key(pool, KEY, WORKSPACE) == 0

    [alert] = await _active(pool)
    assert (alert.alert_type, alert.severity) == ("anomaly", "medium")  # 39 points
    assert alert.dedup_key == "anomaly:approvalRate"
    assert alert.evidence["metric"] == "approvalRate"
    assert alert.evidence["current"] < alert.evidence["baseline"]
    assert alert.evidence["window"] == "7d vs 30d"
    assert alert.description.startswith("Approval rate fell from 56% (30-day) to 17% (7-day)")
    assert await _active(pool, "another-key") == []


async def test_a_steady_rate_or_too_few_decisions_raise_nothing(pool: Pool) -> None:
    steady = [_judgment(n, "approved" if n % 2 else "rejected", 20) for n in range(10)]
    steady += [_judgment(10 + n, "approved" if n % 2 else "rejected", 1) for n in range(6)]
    await _record(pool, steady)
    await _record(pool, [_judgment(n, "rejected", 1, api_key="sparse") for n in range(4)])

    assert await check_key(pool, KEY, WORKSPACE) == 0
    assert await check_key(pool, "sparse", WORKSPACE) == 0


async def test_a_dismissed_trend_is_not_raised_again_within_the_week(pool: Pool) -> None:
    await _record(pool, _falling_approvals())
    await check_key(pool, KEY, WORKSPACE)
    [alert] = await _active(pool)
    async with pool.acquire() as conn:
        assert await alerts.dismiss(conn, KEY, alert.alert_id, "carol", now_ms())

    assert await check_key(pool, KEY, WORKSPACE) == 0
    assert await _active(pool) == []


async def test_new_patterns_raise_emerging_standards_three_a_week_at_most(pool: Pool) -> None:
    async with pool.acquire() as conn:
        for n in range(4):
            await patterns.save(conn, _pattern(n, 1))
        await patterns.save(conn, _pattern(9, 30))  # found a month ago: not emerging

    assert await check_key(pool, KEY, WORKSPACE) == 3

    raised = await _active(pool)
    assert {a.alert_type for a in raised} == {"emerging_standard"}
    assert all(a.dedup_key.startswith("emerging_standard:pat_") for a in raised)
    assert "pat_9" not in {a.dedup_key.split(":")[1] for a in raised}
    assert raised[0].evidence["metric"] == "enforcementRate"
    assert raised[0].evidence["current"] == 1.0
    assert await check_key(pool, KEY, WORKSPACE) == 0


async def test_a_key_that_turned_alerts_off_gets_none(pool: Pool) -> None:
    await _record(pool, _falling_approvals())
    async with pool.acquire() as conn:
        await alerts.merge_config(conn, KEY, {"enabled": False}, now_ms())

    assert await check_key(pool, KEY, WORKSPACE) == 0
    assert await _active(pool) == []


async def test_a_sharp_drop_is_high_and_the_sweep_checks_every_active_key(pool: Pool) -> None:
    older = [_judgment(n, "approved", 20) for n in range(10)]
    recent = [_judgment(10 + n, "rejected", 1) for n in range(5)]
    await _record(pool, older + recent)
    await _record(pool, [_judgment(n, "rejected", 60, api_key="dormant") for n in range(20)])

    assert await sweep(pool) == 1

    [alert] = await _active(pool)
    assert alert.severity == "high"
    assert await _active(pool, "dormant") == []
