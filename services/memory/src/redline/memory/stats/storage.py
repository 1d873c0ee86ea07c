"""The SQL of memory's counts, each stopped at its ceiling (a count that stops early stays
cheap however large a key's memory grows)."""

from __future__ import annotations

from redline.pg import Connection


async def counts(
    conn: Connection, api_key: str, *, max_judgments: int, max_reviewers: int
) -> tuple[int, int, int]:
    """The key's judgments and reviewers (up to their ceilings) and its knowledge sources."""
    record = await conn.fetchrow(
        """
        SELECT
          (SELECT count(*) FROM (SELECT 1 FROM memory.judgment WHERE api_key = $1
                                  LIMIT $2) j) AS judgments,
          (SELECT count(*) FROM (SELECT DISTINCT reviewer_id FROM memory.judgment
                                  WHERE api_key = $1 AND reviewer_id IS NOT NULL
                                  LIMIT $3) r) AS reviewers,
          (SELECT count(*) FROM memory.source WHERE api_key = $1) AS sources
        """,
        api_key,
        max_judgments,
        max_reviewers,
    )
    assert record is not None
    return int(record["judgments"]), int(record["reviewers"]), int(record["sources"])
