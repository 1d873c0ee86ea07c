"""Building, queueing, claiming and recording deliveries for the storage tests."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import (
    AttemptResult,
    ClaimedDelivery,
    NewDelivery,
    Wanted,
)
from redline.pg import Pool

URL = "https://receiver.example.com/hook"
OTHER_URL = "https://other.example.com/hook"
LEASE_S = 60.0


def new(
    webhook_id: str,
    *,
    key: str = "org1/doc1",
    url: str = URL,
    workspace: str = "ws1",
    api_key: str = "key1",
    event_type: str = "comment.add",
    failed_error: str | None = None,
    held: bool = False,
) -> NewDelivery:
    """A basic webhook's delivery, or with `held` a workflow one (its retry holds its line)."""
    return NewDelivery(
        webhook_id=webhook_id,
        workspace_id=workspace,
        api_key=api_key,
        kind="workflow" if held else "basic",
        event_id="evt_" + webhook_id,
        event_type=event_type,
        target="workflow" if held else "raw",
        url=url,
        ordering_key=key,
        body=b'{"webhookId": "' + webhook_id.encode() + b'"}',
        failed_error=failed_error,
        retry_holds_line=held,
    )


async def enqueue(pool: Pool, deliveries: Sequence[NewDelivery]) -> int:
    async with pool.acquire() as conn:
        return await storage.enqueue(conn, deliveries)


async def claim(
    pool: Pool,
    limit: int = 100,
    per_url_limit: int = 100,
    lease_s: float = LEASE_S,
    run_limit: int = 1,
    wanted: Mapping[str, Wanted] | None = None,
    wanted_otherwise: int | None = None,
    holder: int | None = None,
) -> list[ClaimedDelivery]:
    async with pool.acquire() as conn:
        return await storage.claim(
            conn,
            limit,
            per_url_limit,
            lease_s,
            run_limit,
            wanted,
            wanted_otherwise,
            holder=holder,
        )


def ids(claimed: Sequence[ClaimedDelivery]) -> list[str]:
    return sorted(d.webhook_id for d in claimed)


def result(
    delivery: ClaimedDelivery,
    state: str,
    *,
    status: int | None = 200,
    error: str | None = None,
    retry_in_s: float = 0.0,
    claim_token: str | None = None,
) -> AttemptResult:
    now = dt.datetime.now(dt.UTC)
    return AttemptResult(
        delivery_id=delivery.id,
        claim_token=delivery.claim_token if claim_token is None else claim_token,
        attempt=delivery.attempts + 1,
        started_at=now,
        status=status,
        latency_ms=12.5,
        error=error,
        state=state,
        round_failures=delivery.round_failures + (state != "succeeded"),
        next_attempt_at=now + dt.timedelta(seconds=retry_in_s),
    )


async def record(pool: Pool, *results: AttemptResult) -> None:
    async with pool.acquire() as conn:
        await storage.record(conn, results)


async def row(pool: Pool, webhook_id: str) -> Any:
    return await pool.fetchrow("SELECT * FROM notify.delivery WHERE webhook_id = $1", webhook_id)
