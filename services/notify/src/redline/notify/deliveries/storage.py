"""The SQL of the delivery queue: enqueue, claim, record attempts, release, renew, purge. The
delivery log the API reads and replays is `log_storage`.

Claims are serialised by a transaction-level advisory lock: a claim is one short statement, and
serialising it makes the per-URL concurrency limit and the per-key ordering exact across
replicas, where `SKIP LOCKED` alone would let two replicas pick neighbours of one key.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import msgspec

from redline.pg import Connection
from redline.pg.plans import SET_CUSTOM_PLANS, custom_plans

NOTIFY_CHANNEL = "redline_notify_delivery"
# Any constant shared by every replica; the claim statement holds it for microseconds.
_CLAIM_LOCK = 0x6E6F74696679  # "notify"


class NewDelivery(msgspec.Struct, frozen=True, kw_only=True):
    webhook_id: str
    workspace_id: str
    api_key: str
    kind: str
    event_id: str
    event_type: str
    target: str
    url: str
    ordering_key: str
    body: bytes
    # Set when the delivery cannot be attempted at all (say, no usable encryption key): it is
    # stored failed, with this reason, so the operator sees it.
    failed_error: str | None = None


class ClaimedDelivery(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    webhook_id: str
    workspace_id: str
    api_key: str
    kind: str
    url: str
    ordering_key: str
    body: bytes
    attempts: int
    round_failures: int
    claim_token: str


class AttemptResult(msgspec.Struct, frozen=True, kw_only=True):
    """One finished attempt and what it makes of its delivery."""

    delivery_id: int
    claim_token: str
    attempt: int
    started_at: dt.datetime
    status: int | None
    latency_ms: float
    error: str | None
    state: str  # succeeded, failed or pending (a retry is due at next_attempt_at)
    round_failures: int
    next_attempt_at: dt.datetime


async def enqueue(conn: Connection, deliveries: Sequence[NewDelivery]) -> int:
    """Insert the deliveries not yet known (by webhook id); wakes the workers. Returns how many
    were new."""
    if not deliveries:
        return 0
    inserted = await conn.fetchval(
        """
        WITH given AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
                $6::text[], $7::text[], $8::text[], $9::text[], $10::bytea[], $11::text[])
                WITH ORDINALITY
                AS d(webhook_id, workspace_id, api_key, kind, event_id, event_type, target, url,
                     ordering_key, body, failed_error, position)
        ), new AS (
            INSERT INTO notify.delivery (webhook_id, workspace_id, api_key, kind, event_id,
                event_type, target, url, ordering_key, state, last_error, finished_at)
            SELECT webhook_id, workspace_id, api_key, kind, event_id, event_type, target, url,
                ordering_key,
                CASE WHEN failed_error IS NULL THEN 'pending' ELSE 'failed' END,
                failed_error,
                CASE WHEN failed_error IS NULL THEN NULL ELSE now() END
            FROM given
            -- Ids follow the given order: ordering per key relies on it.
            ORDER BY position
            ON CONFLICT (webhook_id) DO NOTHING
            RETURNING id, webhook_id
        ), bodies AS (
            -- A webhook id given twice is inserted once, from its first place.
            INSERT INTO notify.delivery_body (delivery_id, body)
            SELECT DISTINCT ON (new.id) new.id, given.body FROM new JOIN given USING (webhook_id)
            ORDER BY new.id, given.position
        )
        SELECT count(*) FROM new
        """,
        [d.webhook_id for d in deliveries],
        [d.workspace_id for d in deliveries],
        [d.api_key for d in deliveries],
        [d.kind for d in deliveries],
        [d.event_id for d in deliveries],
        [d.event_type for d in deliveries],
        [d.target for d in deliveries],
        [d.url for d in deliveries],
        [d.ordering_key for d in deliveries],
        [d.body for d in deliveries],
        [d.failed_error for d in deliveries],
    )
    count = int(inserted)
    if count:
        await conn.execute("SELECT pg_notify($1, '')", NOTIFY_CHANNEL)
    return count


# Claims and results do not wait for their commit to reach the disk. One lost in a crash of
# PostgreSQL only means a delivery is sent again, which at-least-once delivery allows (receivers
# dedupe on `webhook-id`); the log is written in order, so no result outlives the claim it
# follows. Waiting for each flush put a disk write into every step of a document's line.
_NO_FLUSH_WAIT = "SET LOCAL synchronous_commit = off"

# Rows that hold their place in their line (URL and ordering key): in flight, or never tried.
_IN_LINE = "(state = 'sending' OR (state = 'pending' AND attempts = 0))"


async def claim(
    conn: Connection, limit: int, per_url_limit: int, lease_s: float, run_limit: int
) -> list[ClaimedDelivery]:
    """Claim up to `limit` due deliveries for this worker.

    Per URL and ordering key (a line), deliveries holding their place in line go in order: one
    in flight or never tried holds back those after it, so a healthy receiver gets them in
    order; one that failed and waits for its retry holds nothing back (and is claimable itself
    once due). From a line with nothing in flight, a claim takes a run: up to `run_limit`
    deliveries from its first, up to the first not yet due, which the worker sends one after
    another. No URL has more than `per_url_limit` claimed at once across replicas, and a run
    cut short by a limit keeps its start. Claims whose lease ran out (a replica died
    mid-send) are taken back first.

    Each URL's lines are visited in turn, in ordering-key order from just after the line the
    last claim took from (`notify.delivery_turn`, shared by every replica) and round again, and
    the visit stops as soon as the URL's free places are filled: a claim reads about as many
    lines as it takes, however many thousands of documents wait behind a receiver, and every
    line gets its turn.
    """
    async with conn.transaction():
        # One round trip (the simple protocol takes several statements): the lock, plain index
        # scans, plans for the queue as it is now (see redline.pg.plans), no wait for the
        # commit's flush, and claims whose lease ran out given back. Bitmap scans would never
        # mark the index entries of finished deliveries dead, so every claim would visit each
        # of them in the heap again until a vacuum; an index scan marks them once.
        await conn.execute(
            f"SELECT pg_advisory_xact_lock({_CLAIM_LOCK});"  # noqa: S608 (constants)
            f" SET LOCAL enable_bitmapscan = off; {SET_CUSTOM_PLANS}; {_NO_FLUSH_WAIT};"
            " UPDATE notify.delivery SET state = 'pending', claim_token = NULL"
            " WHERE state = 'sending' AND lease_until < now()"
        )
        rows = await conn.fetch(
            f"""
            WITH RECURSIVE line_urls AS (
                -- Each URL with a line, one index probe per URL (a loose index scan).
                (SELECT url FROM notify.delivery WHERE {_IN_LINE} ORDER BY url LIMIT 1)
                UNION ALL
                SELECT next.url FROM line_urls u, LATERAL (
                    SELECT url FROM notify.delivery WHERE {_IN_LINE} AND url > u.url
                    ORDER BY url LIMIT 1
                ) next
            ), retry_urls AS (
                (SELECT url FROM notify.delivery WHERE state = 'pending' AND attempts > 0
                 ORDER BY url LIMIT 1)
                UNION ALL
                SELECT next.url FROM retry_urls u, LATERAL (
                    SELECT url FROM notify.delivery
                    WHERE state = 'pending' AND attempts > 0 AND url > u.url
                    ORDER BY url LIMIT 1
                ) next
            ), claimed AS (
                SELECT url, count(*) AS n FROM notify.delivery
                WHERE state = 'sending' GROUP BY url
            ), free AS (
                SELECT u.url, $2 - coalesce(k.n, 0) AS places, coalesce(t.after_key, '') AS after
                FROM (SELECT url FROM line_urls UNION SELECT url FROM retry_urls) u
                LEFT JOIN claimed k USING (url)
                LEFT JOIN notify.delivery_turn t USING (url)
                WHERE $2 - coalesce(k.n, 0) > 0
            ), candidates AS (
                SELECT f.url, f.places, f.after, c.* FROM free f, LATERAL (
                    (
                        -- The lines of this URL from the key after its last turn, round again
                        -- once, each line's first delivery; read only until the places are
                        -- filled (a recursive query runs as far as it is read). The visit
                        -- starts from the turn itself, a row that is no delivery.
                        WITH RECURSIVE lines AS (
                            SELECT f.after AS ordering_key, NULL::bigint AS id, NULL AS state,
                                   NULL::timestamptz AS next_attempt_at, false AS wrapped
                            UNION ALL
                            SELECT head.* FROM lines l, LATERAL (
                                (SELECT ordering_key, id, state, next_attempt_at, l.wrapped
                                 FROM notify.delivery
                                 WHERE {_IN_LINE} AND url = f.url
                                   AND ordering_key > l.ordering_key
                                 ORDER BY ordering_key, id LIMIT 1)
                                UNION ALL
                                (SELECT ordering_key, id, state, next_attempt_at, true
                                 FROM notify.delivery
                                 WHERE {_IN_LINE} AND url = f.url AND NOT l.wrapped
                                 ORDER BY ordering_key, id LIMIT 1)
                                LIMIT 1
                            ) head WHERE NOT (head.wrapped AND head.ordering_key > f.after)
                        )
                        -- From each line whose first delivery is due, its run: up to $4
                        -- deliveries in order, up to the first one not yet due. (No URL
                        -- gives more than the whole claim may take.)
                        SELECT run.id, l.ordering_key, l.next_attempt_at AS run_at,
                               l.id AS run_id, run.place_in_run, true AS in_line
                        FROM lines l, LATERAL (
                            SELECT id, place_in_run FROM (
                                SELECT id, row_number() OVER (ORDER BY id) AS place_in_run,
                                       bool_and(state = 'pending' AND next_attempt_at <= now())
                                           OVER (ORDER BY id) AS all_due
                                FROM (SELECT id, state, next_attempt_at FROM notify.delivery
                                      WHERE {_IN_LINE} AND url = f.url
                                        AND ordering_key = l.ordering_key
                                      ORDER BY id LIMIT $4) line
                            ) line WHERE all_due
                        ) run
                        WHERE l.state = 'pending' AND l.next_attempt_at <= now()
                        LIMIT least(f.places, $1)
                    )
                    UNION ALL
                    (
                        SELECT id, ordering_key, next_attempt_at, id, 1, false
                        FROM notify.delivery
                        WHERE state = 'pending' AND attempts > 0 AND url = f.url
                          AND next_attempt_at <= now()
                        ORDER BY next_attempt_at LIMIT least(f.places, $1)
                    )
                ) c
            ), picked AS (
                -- Oldest first, a run by its first delivery and whole or cut short at its end:
                -- no delivery is taken without those before it in its run.
                SELECT id, url, ordering_key, after, in_line FROM (
                    SELECT *, row_number() OVER (
                        PARTITION BY url ORDER BY run_at, run_id, place_in_run) AS place
                    FROM candidates
                ) ranked
                WHERE place <= places ORDER BY run_at, run_id, place_in_run LIMIT $1
            ), turned AS (
                -- Where each URL's next visit starts: after the last line taken in this one,
                -- which is the last at or before the old turn if the visit went round.
                INSERT INTO notify.delivery_turn (url, after_key)
                SELECT url, coalesce(max(ordering_key) FILTER (WHERE ordering_key <= after),
                                     max(ordering_key))
                FROM picked WHERE in_line GROUP BY url, after
                ON CONFLICT (url) DO UPDATE SET after_key = excluded.after_key
            )
            -- Picked ids as an array: the update finds them by primary key, where a join could
            -- be planned as a hash of the whole table for a batch estimated at `limit` rows.
            UPDATE notify.delivery d
            SET state = 'sending', claim_token = gen_random_uuid()::text,
                lease_until = now() + make_interval(secs => $3)
            WHERE d.id = ANY (ARRAY(SELECT id FROM picked))
            RETURNING d.id, d.webhook_id, d.workspace_id, d.api_key, d.kind, d.url, d.ordering_key,
                      (SELECT body FROM notify.delivery_body b WHERE b.delivery_id = d.id),
                      d.attempts, d.round_failures, d.claim_token
            """,  # noqa: S608 (this module's constants)
            limit,
            per_url_limit,
            lease_s,
            run_limit,
        )
    return sorted((ClaimedDelivery(**dict(row)) for row in rows), key=lambda d: d.id)


async def record(conn: Connection, results: Sequence[AttemptResult]) -> None:
    """Store finished attempts and their deliveries' new state, in one statement, planned for
    the batch and the table as they are (see redline.pg.plans), without waiting for the flush.

    A result whose claim was taken back meanwhile (its lease ran out) still records its
    attempt, but leaves the delivery to the replica that holds it now.
    """
    if not results:
        return
    async with conn.transaction():
        await conn.execute(f"{SET_CUSTOM_PLANS}; {_NO_FLUSH_WAIT}")
        await conn.execute(
            """
            WITH r AS (
                SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::timestamptz[],
                                     $5::int[], $6::real[], $7::text[], $8::text[], $9::int[],
                                     $10::timestamptz[])
                    AS r(id, claim_token, attempt, started_at, status, latency_ms, error, state,
                         round_failures, next_attempt_at)
            ), attempts AS (
                INSERT INTO notify.delivery_attempt
                    (delivery_id, attempt, started_at, status, latency_ms, error)
                SELECT id, attempt, started_at, status, latency_ms, error FROM r
                ON CONFLICT DO NOTHING
            )
            UPDATE notify.delivery d
            SET state = r.state, attempts = r.attempt, round_failures = r.round_failures,
                next_attempt_at = r.next_attempt_at, last_status = r.status,
                last_error = r.error, claim_token = NULL, lease_until = NULL,
                finished_at = CASE WHEN r.state = 'pending' THEN NULL ELSE now() END
            FROM r
            WHERE d.id = r.id AND d.claim_token = r.claim_token
            """,
            [r.delivery_id for r in results],
            [r.claim_token for r in results],
            [r.attempt for r in results],
            [r.started_at for r in results],
            [r.status for r in results],
            [r.latency_ms for r in results],
            [r.error for r in results],
            [r.state for r in results],
            [r.round_failures for r in results],
            [r.next_attempt_at for r in results],
        )


async def release(conn: Connection, claims: Sequence[tuple[int, str]], delay_s: float) -> None:
    """Give claimed deliveries (id, claim token) back without counting an attempt: nothing was
    sent."""
    async with custom_plans(conn):
        await _update_held(
            conn,
            "state = 'pending', claim_token = NULL, lease_until = NULL,"
            " next_attempt_at = now() + make_interval(secs => $3)",
            claims,
            delay_s,
        )
        await conn.execute("SELECT pg_notify($1, '')", NOTIFY_CHANNEL)


async def purge_finished(conn: Connection, older_than_s: float, limit: int = 10_000) -> int:
    """Delete up to `limit` deliveries that succeeded or failed more than `older_than_s` ago,
    with their bodies and attempts; returns how many went. Small batches keep each delete short.
    """
    purged = await conn.fetchval(
        """
        WITH gone AS (
            DELETE FROM notify.delivery WHERE id IN (
                SELECT id FROM notify.delivery
                WHERE state IN ('succeeded', 'failed')
                  AND finished_at < now() - make_interval(secs => $1)
                LIMIT $2)
            RETURNING id
        ), bodies AS (
            DELETE FROM notify.delivery_body WHERE delivery_id IN (SELECT id FROM gone)
        ), attempts AS (
            DELETE FROM notify.delivery_attempt WHERE delivery_id IN (SELECT id FROM gone)
        )
        SELECT count(*) FROM gone
        """,
        older_than_s,
        limit,
    )
    return int(purged)


async def forget_idle_turns(conn: Connection) -> None:
    """Forget where the claim's visits of a URL's lines got to once the URL has nothing waiting:
    it has no lines to take turns between."""
    await conn.execute(
        f"""
        DELETE FROM notify.delivery_turn t
        WHERE NOT EXISTS (SELECT 1 FROM notify.delivery d WHERE d.url = t.url AND {_IN_LINE})
          AND NOT EXISTS (SELECT 1 FROM notify.delivery d
                          WHERE d.url = t.url AND d.state = 'pending' AND d.attempts > 0)
        """  # noqa: S608 (this module's constants)
    )


async def next_due(conn: Connection) -> dt.datetime | None:
    """When the earliest retry is due. New deliveries announce themselves by NOTIFY; one given
    back with a delay (its credentials could not be read) is found by the idle poll."""
    value: dt.datetime | None = await conn.fetchval(
        "SELECT min(next_attempt_at) FROM notify.delivery WHERE state = 'pending' AND attempts > 0"
    )
    return value


async def extend_leases(
    conn: Connection, claims: Sequence[tuple[int, str]], lease_s: float
) -> None:
    """Keep claims (id, claim token) this worker still holds from running out while they wait
    for a turn at a slow receiver."""
    async with custom_plans(conn):
        await _update_held(conn, "lease_until = now() + make_interval(secs => $3)", claims, lease_s)


async def _update_held(
    conn: Connection, assignments: str, claims: Sequence[tuple[int, str]], seconds: float
) -> None:
    """Apply `assignments` (which may use `seconds` as $3) to the claimed deliveries (id, claim
    token) still held under that token."""
    await conn.execute(
        f"UPDATE notify.delivery d SET {assignments}"  # noqa: S608 (this module's constants)
        " FROM unnest($1::bigint[], $2::text[]) AS c(id, claim_token)"
        " WHERE d.id = c.id AND d.claim_token = c.claim_token",
        [claim[0] for claim in claims],
        [claim[1] for claim in claims],
        seconds,
    )
