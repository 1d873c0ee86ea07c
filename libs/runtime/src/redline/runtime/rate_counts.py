"""The rate limit counts every replica shares, in PostgreSQL (`redline.envelope.ratelimit`).

A fold adds each process's new counts to one row per key in a single statement, rolling the
row's window first exactly as a process rolls its own (`INSERT … ON CONFLICT DO UPDATE` is
atomic per row, so concurrent folds of several replicas add up), and returns the totals. Rows
are locked in key order, so two folds never deadlock. Keys idle for two windows are deleted a
bounded batch at a time, by whichever process folds.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

from redline.envelope.ratelimit import WINDOW_S, Delta, RateLimiter, Tier, Totals
from redline.pg import Pool
from redline.runtime.tasks import running

SCHEMA = "ratelimit"
MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"
SWEEP_BATCH = 1_000

# $4 is the folding process's clock, $5 the window's length.
_FOLD = """
INSERT INTO ratelimit.windows AS w (key, start_s, current_count, previous_count)
SELECT key, start_s, count, 0
FROM unnest($1::bytea[], $2::float8[], $3::int[]) AS d(key, start_s, count)
ORDER BY key
ON CONFLICT (key) DO UPDATE SET
    start_s = CASE
        WHEN $4 >= w.start_s + 2 * $5 THEN $4
        WHEN $4 >= w.start_s + $5 THEN w.start_s + $5
        ELSE w.start_s END,
    previous_count = CASE
        WHEN $4 >= w.start_s + 2 * $5 THEN 0
        WHEN $4 >= w.start_s + $5 THEN w.current_count
        ELSE w.previous_count END,
    current_count = CASE WHEN $4 >= w.start_s + $5 THEN 0 ELSE w.current_count END
        + EXCLUDED.current_count
RETURNING key, start_s, current_count, previous_count
"""

_SWEEP = """
DELETE FROM ratelimit.windows WHERE key IN (
    SELECT key FROM ratelimit.windows WHERE start_s <= $1 - 2 * $2
    LIMIT $3 FOR UPDATE SKIP LOCKED
)
"""


def _digest(delta: Delta) -> bytes:
    return hashlib.blake2b(f"{delta.tier.value}\n{delta.key}".encode(), digest_size=16).digest()


class PgRateCounts:
    """`SharedCounts` in the `ratelimit` schema of the service's database."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def fold(self, deltas: Sequence[Delta], now: float) -> Sequence[Totals]:
        keys = [_digest(delta) for delta in deltas]
        starts = [delta.start for delta in deltas]
        counts = [delta.count for delta in deltas]
        async with self._pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(_FOLD, keys, starts, counts, now, WINDOW_S)
            await conn.execute(_SWEEP, now, WINDOW_S, SWEEP_BATCH)
        by_key = {row["key"]: row for row in rows}
        return [
            Totals(r["start_s"], r["current_count"], r["previous_count"])
            for r in (by_key[key] for key in keys)
        ]


@contextlib.asynccontextmanager
async def shared_limiter(
    limits: Mapping[Tier, int], pool: Pool, sync_s: float
) -> AsyncIterator[RateLimiter]:
    """A rate limiter of `limits` whose counts are folded into every replica's shared ones every
    `sync_s` while it is in use (0: this process counts on its own)."""
    if sync_s <= 0:
        yield RateLimiter(dict(limits))
        return
    limiter = RateLimiter(dict(limits), shared=PgRateCounts(pool))
    try:
        async with running(limiter.run(sync_s), name="rate-limit-fold"):
            yield limiter
    finally:
        await limiter.close()
