"""The SQL of the delivery queue: enqueue, record attempts, release, renew, purge, and how far
numbered lines got. The claim is `claim_storage`; the delivery log the API reads and replays is
`log_storage`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import msgspec

from redline.pg import Connection
from redline.pg.plans import custom_plans

NOTIFY_CHANNEL = "redline_notify_delivery"


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
    # While it waits for a retry, the delivery keeps its place and holds back the rest of its
    # line (see IN_LINE), instead of letting them overtake it.
    retry_holds_line: bool = False
    # For lines whose producer numbers its events: this delivery's number, recorded as how far
    # the line got (`line_seqs`), and whether the producer said nothing will follow it.
    line_seq: int | None = None
    line_ends: bool = False


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
    retry_holds_line: bool = False
    # raw or processed (basic webhooks), the endpoint id (advanced webhooks), workflow.
    target: str = ""


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
    """Insert the deliveries not yet known (by webhook id), and record how far their numbered
    lines got, in one statement; wakes the workers. Returns how many were new."""
    if not deliveries:
        return 0
    inserted = await conn.fetchval(
        """
        WITH given AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
                $6::text[], $7::text[], $8::text[], $9::text[], $10::bytea[], $11::text[],
                $12::boolean[], $13::bigint[], $14::boolean[])
                WITH ORDINALITY
                AS d(webhook_id, workspace_id, api_key, kind, event_id, event_type, target, url,
                     ordering_key, body, failed_error, retry_holds_line, line_seq, line_ends,
                     position)
        ), new AS (
            INSERT INTO notify.delivery (webhook_id, workspace_id, api_key, kind, event_id,
                event_type, target, url, ordering_key, state, last_error, finished_at,
                retry_holds_line)
            SELECT webhook_id, workspace_id, api_key, kind, event_id, event_type, target, url,
                ordering_key,
                CASE WHEN failed_error IS NULL THEN 'pending' ELSE 'failed' END,
                failed_error,
                CASE WHEN failed_error IS NULL THEN NULL ELSE now() END,
                retry_holds_line
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
        ), line_seqs AS (
            -- Committed with the deliveries: a line's number never runs ahead of them. Lines
            -- are locked in key order, so two batches naming the same lines cannot deadlock.
            INSERT INTO notify.delivery_line_seq (url, ordering_key, seq, ended_at)
            SELECT url, ordering_key, max(line_seq),
                   CASE WHEN bool_or(line_ends) THEN now() END
            FROM given WHERE line_seq IS NOT NULL
            GROUP BY url, ordering_key ORDER BY url, ordering_key
            ON CONFLICT (url, ordering_key) DO UPDATE
            SET seq = greatest(delivery_line_seq.seq, excluded.seq),
                ended_at = coalesce(delivery_line_seq.ended_at, excluded.ended_at)
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
        [d.retry_holds_line for d in deliveries],
        [d.line_seq for d in deliveries],
        [d.line_ends for d in deliveries],
    )
    count = int(inserted)
    if count:
        await conn.execute("SELECT pg_notify($1, '')", NOTIFY_CHANNEL)
    return count


async def line_seqs(
    conn: Connection, lines: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], int]:
    """How far each of the numbered lines (URL, ordering key) got: the greatest number queued.
    A line never seen (or forgotten after it ended) is absent."""
    rows = await conn.fetch(
        "SELECT s.url, s.ordering_key, s.seq FROM notify.delivery_line_seq s"
        " JOIN unnest($1::text[], $2::text[]) AS l(url, ordering_key)"
        ' ON s.url = l.url COLLATE "C" AND s.ordering_key = l.ordering_key COLLATE "C"',
        [line[0] for line in lines],
        [line[1] for line in lines],
    )
    return {(row["url"], row["ordering_key"]): row["seq"] for row in rows}


# Claims and results do not wait for their commit to reach the disk. One lost in a crash of
# PostgreSQL only means a delivery is sent again, which at-least-once delivery allows (receivers
# dedupe on `webhook-id`); the log is written in order, so no result outlives the claim it
# follows. Waiting for each flush put a disk write into every step of a document's line.
NO_FLUSH_WAIT = "SET LOCAL synchronous_commit = off"

# The statements that change several deliveries a worker holds (record, release, renew) lock
# them in id order: given rows sorted by id, the nested loop planned over them follows it. An
# operator's retry locks in id order too, and runs apart from claims (`claim_storage.
# hold_claims`): a retry and a worker's statement naming the same deliveries wait for each other
# rather than deadlock.

# Rows that hold their place in their line (URL and ordering key): in flight, never tried, or
# waiting for a retry that holds the line (`retry_holds_line`: the rest of the line waits until
# it succeeds or fails for good). The partial indexes of migration 0005 repeat these predicates
# word for word, so that the planner matches them.
IN_LINE = "(state = 'sending' OR (state = 'pending' AND (attempts = 0 OR retry_holds_line)))"
# Retries that wait apart from their line, which goes on without them.
RETRY_APART = "(state = 'pending' AND attempts > 0 AND NOT retry_holds_line)"
# Retries that hold their line: claimed through it, as the head of a run.
HELD_RETRY = "(state = 'pending' AND attempts > 0 AND retry_holds_line)"


async def record(conn: Connection, results: Sequence[AttemptResult]) -> None:
    """Store finished attempts and their deliveries' new state, in one statement, planned for
    the batch and the table as they are (see redline.pg.plans), without waiting for the flush.

    A result whose claim was taken back meanwhile (its lease ran out) still records its
    attempt, but leaves the delivery to the replica that holds it now.
    """
    if not results:
        return
    results = sorted(results, key=lambda r: r.delivery_id)
    async with custom_plans(conn, NO_FLUSH_WAIT):
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


async def release_claim(conn: Connection, claim_token: str) -> int:
    """Give back, due now and with no attempt counted, the deliveries still held under one
    claim's token: a claim whose answer never reached its worker (stopped while the claim
    committed). Returns how many went back."""
    status = await conn.execute(
        "UPDATE notify.delivery SET state = 'pending', claim_token = NULL, lease_until = NULL,"
        " next_attempt_at = now() WHERE state = 'sending' AND claim_token = $1",
        claim_token,
    )
    await conn.execute("SELECT pg_notify($1, '')", NOTIFY_CHANNEL)
    return int(status.split()[-1])


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
        WHERE NOT EXISTS (SELECT 1 FROM notify.delivery d WHERE d.url = t.url AND {IN_LINE})
          AND NOT EXISTS (SELECT 1 FROM notify.delivery d WHERE d.url = t.url AND {RETRY_APART})
        """  # noqa: S608 (this module's constants)
    )


async def forget_ended_lines(conn: Connection, older_than_s: float) -> int:
    """Forget how far numbered lines got once they ended more than `older_than_s` ago (an event
    of such a line arriving later is older than that, see `workflow.enqueue`); returns how many
    went."""
    forgotten = await conn.fetchval(
        """
        WITH gone AS (
            DELETE FROM notify.delivery_line_seq
            WHERE ended_at < now() - make_interval(secs => $1)
            RETURNING 1
        )
        SELECT count(*) FROM gone
        """,
        older_than_s,
    )
    return int(forgotten)


async def next_due(conn: Connection) -> dt.datetime | None:
    """When the earliest retry is due, whether it waits apart or holds its line. New deliveries
    announce themselves by NOTIFY; one given back with a delay (its credentials could not be
    read) is found by the idle poll."""
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
    claims = sorted(claims)
    await conn.execute(
        f"UPDATE notify.delivery d SET {assignments}"  # noqa: S608 (this module's constants)
        " FROM unnest($1::bigint[], $2::text[]) AS c(id, claim_token)"
        " WHERE d.id = c.id AND d.claim_token = c.claim_token",
        [claim[0] for claim in claims],
        [claim[1] for claim in claims],
        seconds,
    )
