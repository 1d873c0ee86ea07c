"""Benchmark: what one claim of the webhook delivery queue costs as documents pile up behind a
receiver.

A receiver that was down leaves a backlog: every document with undelivered events is a line of
its own (deliveries of one document go out in order, one at a time). This queues four
deliveries for each of 200, 2,000 and 20,000 documents to one URL, in PostgreSQL started for the
purpose, then runs the worker's cycle as it runs when the receiver is back: claim up to the
URL's window (512) less what is in flight, in runs of up to 64 deliveries per document (as
the worker claims with the default settings from a receiver answering fast), record the claimed
half as delivered, claim again.
Printed: milliseconds per claim and microseconds per claimed delivery (medians), per backlog.

Target: a claim's cost follows what it claims, not the number of documents waiting; at 20,000
documents a claim costs no more than twice what it costs at 200.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncpg

from redline.local.servers import LocalPostgres
from redline.notify.app import MIGRATIONS, SCHEMA
from redline.notify.deliveries import storage
from redline.notify.deliveries.pace import run_limit
from redline.notify.deliveries.storage import AttemptResult, ClaimedDelivery, NewDelivery
from redline.notify.settings import NotifySettings
from redline.pg.migrate import migrate
from tests.bench.report import Row, exit_code, row

URL = "https://receiver.example.com/hook"
BACKLOGS = (200, 2_000, 20_000)
DELIVERIES = 80_000
WINDOW = NotifySettings().webhook_endpoint_window
# As the worker claims with the default settings.
RUN_LIMIT = run_limit(WINDOW, NotifySettings().webhook_endpoint_concurrency)
CLAIMS = 40
TARGET_GROWTH = 2.0
BODY = b'{"webhookId": "x", "actionType": "comment_annotation.add"}' * 16


def _backlog(documents: int) -> list[NewDelivery]:
    return [
        NewDelivery(
            webhook_id=f"msg_{documents}_{n}_{d}",
            workspace_id="ws",
            api_key="key",
            kind="basic",
            event_id=f"evt_{documents}_{n}_{d}",
            event_type="comment_annotation.add",
            target="raw",
            url=URL,
            ordering_key=f"org/doc-{d:05d}",
            body=BODY,
        )
        for n in range(DELIVERIES // documents)
        for d in range(documents)
    ]


def _delivered(claimed: list[ClaimedDelivery]) -> list[AttemptResult]:
    now = dt.datetime.now(dt.UTC)
    return [
        AttemptResult(
            delivery_id=d.id,
            claim_token=d.claim_token,
            attempt=1,
            started_at=now,
            status=200,
            latency_ms=1.0,
            error=None,
            state="succeeded",
            round_failures=0,
            next_attempt_at=now,
        )
        for d in claimed
    ]


async def _cycle(conn: asyncpg.Connection, documents: int) -> tuple[float, float]:
    """Median ms per claim and µs per claimed delivery over CLAIMS claims of one backlog."""
    await conn.execute(
        "TRUNCATE notify.delivery, notify.delivery_body, notify.delivery_attempt,"
        " notify.delivery_turn"
    )
    deliveries = _backlog(documents)
    for start in range(0, len(deliveries), 5_000):
        await storage.enqueue(conn, deliveries[start : start + 5_000])
    await conn.execute("ANALYZE notify.delivery")
    in_flight: list[ClaimedDelivery] = []
    per_claim_ms: list[float] = []
    per_delivery_us: list[float] = []
    for _ in range(CLAIMS):
        started = time.perf_counter()
        claimed = await storage.claim(conn, 1024, WINDOW, 60.0, RUN_LIMIT)
        elapsed = time.perf_counter() - started
        per_claim_ms.append(elapsed * 1000)
        per_delivery_us.append(elapsed * 1e6 / max(1, len(claimed)))
        in_flight += claimed
        # Half of what is in flight comes back: the next claim has that many places.
        done, in_flight = in_flight[: len(in_flight) // 2], in_flight[len(in_flight) // 2 :]
        await storage.record(conn, _delivered(done))
    return statistics.median(per_claim_ms), statistics.median(per_delivery_us)


async def _measure(database_url: str) -> dict[int, tuple[float, float]]:
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        await migrate(conn, SCHEMA, MIGRATIONS)
        return {documents: await _cycle(conn, documents) for documents in BACKLOGS}
    finally:
        await conn.close()


def main() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="redline-bench-claim-") as tmp:
        postgres = LocalPostgres(Path(tmp) / "pg")
        try:
            figures = asyncio.run(_measure(postgres.url))
        finally:
            postgres.stop()
    print(
        f"delivery claims: {DELIVERIES:,} deliveries waiting for one URL, window {WINDOW},"
        f" runs of up to {RUN_LIMIT}, {CLAIMS} claims per backlog"
    )
    for documents, (ms, us) in figures.items():
        print(
            f"  {documents:>7,} documents waiting: {ms:6.2f} ms per claim, {us:6.1f} µs per claimed"
        )
    smallest, largest = figures[BACKLOGS[0]][0], figures[BACKLOGS[-1]][0]
    growth = largest / smallest
    ok = growth <= TARGET_GROWTH
    verdict = "meets" if ok else "MISSES"
    print(
        f"  {BACKLOGS[-1]:,} against {BACKLOGS[0]:,} documents: {growth:.1f}x per claim"
        f" ({verdict} the ≤ {TARGET_GROWTH:g}x target)"
    )
    # The smallest backlog is the baseline of the others: the target is on how a claim's cost
    # grows with the documents waiting.
    rows = [row(f"claim, {BACKLOGS[0]:,} documents waiting", smallest, "ms")]
    rows += [
        row(
            f"claim, {documents:,} documents waiting",
            figures[documents][0],
            "ms",
            baseline=smallest,
        )
        for documents in BACKLOGS[1:-1]
    ]
    rows.append(
        row(
            f"claim, {BACKLOGS[-1]:,} documents waiting",
            largest,
            "ms",
            baseline=smallest,
            target=f"≤ {TARGET_GROWTH:g}x baseline",
            met=ok,
        )
    )
    return rows


if __name__ == "__main__":
    sys.exit(exit_code(main()))
