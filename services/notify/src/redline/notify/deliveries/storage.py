"""The SQL of webhook deliveries, in one place: the queue the worker drives (enqueue, claim,
record, release, renew), how far numbered lines got, the queue's upkeep (purge, forget),
receivers' sending slots (see `rates`), and the delivery log the API reads and replays (list,
attempts, states, requeue).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import msgspec

from redline.pg import LIVE_HOLDERS, Connection
from redline.pg.pages import has_more, within_byte_budget
from redline.pg.plans import SET_CUSTOM_PLANS, custom_plans

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


def _columns(rows: Sequence[msgspec.Struct], fields: Sequence[str]) -> list[list[Any]]:
    """`rows` as one list per field, for a statement that unnests them."""
    return [[getattr(row, name) for row in rows] for name in fields]


# Claims and results do not wait for their commit to reach the disk. One lost in a crash of
# PostgreSQL only means a delivery is sent again, which at-least-once delivery allows (receivers
# dedupe on `webhook-id`); the log is written in order, so no result outlives the claim it
# follows. Waiting for each flush put a disk write into every step of a document's line.
NO_FLUSH_WAIT = "SET LOCAL synchronous_commit = off"

# The statements that change several deliveries a worker holds (record, release, renew) lock
# them in id order: given rows sorted by id, the nested loop planned over them follows it. An
# operator's retry locks in id order too, and runs apart from claims (`hold_claims`): a retry
# and a worker's statement naming the same deliveries wait for each other rather than deadlock.

# Rows that hold their place in their line (URL and ordering key): in flight, never tried, or
# waiting for a retry that holds the line (`retry_holds_line`: the rest of the line waits until
# it succeeds or fails for good). The partial indexes of migration 0005 repeat these predicates
# word for word, so that the planner matches them.
IN_LINE = "(state = 'sending' OR (state = 'pending' AND (attempts = 0 OR retry_holds_line)))"
# Retries that wait apart from their line, which goes on without them.
RETRY_APART = "(state = 'pending' AND attempts > 0 AND NOT retry_holds_line)"
# Retries that hold their line: claimed through it, as the head of a run.
HELD_RETRY = "(state = 'pending' AND attempts > 0 AND retry_holds_line)"


# Claims (and hand-offs, see `enqueue_handing_off`) are serialised by a transaction-level
# advisory lock: a claim is one short statement, and serialising it makes the per-URL
# concurrency limit and the per-key ordering exact across replicas, where `SKIP LOCKED` alone
# would let two replicas pick neighbours of one key. Any constant shared by every replica; the
# claim statement holds it for microseconds.
_CLAIM_LOCK = 0x6E6F74696679  # "notify"


# What `_ENQUEUE` takes of each delivery, one array a column, in its parameters' order.
_ENQUEUED = (
    "webhook_id",
    "workspace_id",
    "api_key",
    "kind",
    "event_id",
    "event_type",
    "target",
    "url",
    "ordering_key",
    "body",
    "failed_error",
    "retry_holds_line",
    "line_seq",
    "line_ends",
)
_ENQUEUE = f"""
WITH given AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
        $6::text[], $7::text[], $8::text[], $9::text[], $10::bytea[], $11::text[],
        $12::boolean[], $13::bigint[], $14::boolean[])
        WITH ORDINALITY
        AS d(webhook_id, workspace_id, api_key, kind, event_id, event_type, target, url,
             ordering_key, body, failed_error, retry_holds_line, line_seq, line_ends,
             position)
), room AS MATERIALIZED (
    -- Of each URL offered ($15, with what the worker would take of it, $16), the places
    -- left within the cap across replicas ($17), counted as a claim counts them.
    -- (Two counts, each from its partial index: one over both predicates would read every
    -- row the URL has queued.)
    SELECT o.url, least(o.places, $17
        - (SELECT count(*) FROM notify.delivery WHERE state = 'sending' AND url = o.url)
        - (SELECT count(*) FROM notify.delivery
           WHERE {HELD_RETRY} AND url = o.url AND next_attempt_at > now())
    ) AS places
    FROM unnest($15::text[], $16::int[]) AS o(url, places)
), handed AS (
    -- What goes straight to the worker: of the offered URLs, deliveries whose line has
    -- nothing in the queue (none of it before them, none in flight), oldest first up to
    -- the places left; a line cut short keeps its start (the rest waits in the queue,
    -- behind it, as a claim would leave it).
    SELECT position FROM (
        SELECT g.position, r.places,
               row_number() OVER (PARTITION BY g.url ORDER BY g.position) AS place
        FROM given g JOIN room r ON r.url COLLATE "C" = g.url
        WHERE g.failed_error IS NULL AND g.line_seq IS NULL AND NOT EXISTS (
            SELECT 1 FROM notify.delivery d
            WHERE {IN_LINE} AND d.url = g.url AND d.ordering_key = g.ordering_key)
    ) ranked WHERE place <= places
), new AS (
    INSERT INTO notify.delivery (webhook_id, workspace_id, api_key, kind, event_id,
        event_type, target, url, ordering_key, state, last_error, finished_at,
        retry_holds_line, claim_token, holder, lease_until)
    SELECT webhook_id, workspace_id, api_key, kind, event_id, event_type, target, url,
        ordering_key,
        CASE WHEN failed_error IS NOT NULL THEN 'failed'
             WHEN h.position IS NOT NULL THEN 'sending' ELSE 'pending' END,
        failed_error,
        CASE WHEN failed_error IS NULL THEN NULL ELSE now() END,
        retry_holds_line,
        CASE WHEN h.position IS NOT NULL THEN $18::text END,
        CASE WHEN h.position IS NOT NULL THEN $19::bigint END,
        CASE WHEN h.position IS NOT NULL THEN now() + make_interval(secs => $20) END
    FROM given LEFT JOIN handed h USING (position)
    -- Ids follow the given order: ordering per key relies on it.
    ORDER BY position
    ON CONFLICT (webhook_id) DO NOTHING
    RETURNING id, webhook_id, state
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
SELECT id, webhook_id, state = 'sending' AS handed, state = 'pending' AS queued FROM new
"""  # noqa: S608 (this module's constants)


class HandOff(msgspec.Struct, frozen=True, kw_only=True):
    """A worker's offer to take new deliveries straight from their producer, claimed as they
    are queued: of each URL in `places`, up to that many (within `per_url_limit` across
    replicas), under the claim's `token`, `holder` and lease."""

    places: Mapping[str, int]
    per_url_limit: int
    token: str
    holder: int | None
    lease_s: float


async def enqueue(conn: Connection, deliveries: Sequence[NewDelivery]) -> int:
    """Insert the deliveries not yet known (by webhook id), and record how far their numbered
    lines got, in one statement; wakes the workers. Returns how many were new."""
    if not deliveries:
        return 0
    rows = await _insert(conn, deliveries, None)
    return len(rows)


async def enqueue_handing_off(
    conn: Connection, deliveries: Sequence[NewDelivery], hand_off: HandOff
) -> list[ClaimedDelivery]:
    """`enqueue`, and claim for the offering worker, in the same statement, the new deliveries
    it can send at once: those of its offered URLs whose line has nothing queued, up to its
    places. A first attempt then costs no claim, and its row is written once before the
    answer (claimed) and once after (the result). Claims and hand-offs are serialised by the
    claim's lock, so the limit per URL and the order per line hold across replicas as they do
    for claims. A delivery of a numbered line (`line_seq`) always goes through the queue."""
    if not deliveries:
        return []
    by_id = {d.webhook_id: d for d in reversed(deliveries)}  # a webhook id's first place
    async with conn.transaction():
        await conn.execute(f"SELECT pg_advisory_xact_lock({_CLAIM_LOCK}); {NO_FLUSH_WAIT}")
        rows = await _insert(conn, deliveries, hand_off)
    return [
        ClaimedDelivery(
            id=row["id"],
            webhook_id=delivery.webhook_id,
            workspace_id=delivery.workspace_id,
            api_key=delivery.api_key,
            kind=delivery.kind,
            url=delivery.url,
            ordering_key=delivery.ordering_key,
            body=delivery.body,
            attempts=0,
            round_failures=0,
            claim_token=hand_off.token,
            retry_holds_line=delivery.retry_holds_line,
            target=delivery.target,
        )
        for row in rows
        if row["handed"] and (delivery := by_id[row["webhook_id"]])
    ]


async def _insert(
    conn: Connection, deliveries: Sequence[NewDelivery], hand_off: HandOff | None
) -> list[Any]:
    """Run `_ENQUEUE` (handing nothing off without `hand_off`); wakes the workers when any
    delivery went to the queue."""
    offered = hand_off.places if hand_off is not None else {}
    rows = await conn.fetch(
        _ENQUEUE,
        *_columns(deliveries, _ENQUEUED),
        list(offered.keys()),
        list(offered.values()),
        hand_off.per_url_limit if hand_off is not None else 0,
        hand_off.token if hand_off is not None else None,
        hand_off.holder if hand_off is not None else None,
        hand_off.lease_s if hand_off is not None else 0.0,
    )
    if any(row["queued"] for row in rows):
        await conn.execute("SELECT pg_notify($1, '')", NOTIFY_CHANNEL)
    return list(rows)


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


# The claim


async def hold_claims(conn: Connection) -> None:
    """Hold the claim's lock until the caller's transaction ends: no claim runs meanwhile.

    For a statement that changes deliveries a claim may take (an operator's retry): the claim
    locks the rows it takes in the order its plan reads them, so two such statements at once
    could deadlock; one after the other, they cannot."""
    await conn.execute(f"SELECT pg_advisory_xact_lock({_CLAIM_LOCK})")


class Wanted(NamedTuple):
    """What a worker would claim of one URL: up to `places` more deliveries, in runs of up to
    `run_limit`."""

    places: int
    run_limit: int


# What a claim runs before its statement, in one round trip (the simple protocol takes several
# statements): the lock, plain index scans, plans for the queue as it is now (see
# redline.pg.plans), no wait for the commit's flush, and claims whose lease ran out given back.
# Bitmap scans would never mark the index entries of finished deliveries dead, so every claim
# would visit each of them in the heap again until a vacuum; an index scan marks them once.
_CLAIM_PROLOGUE = (
    f"SELECT pg_advisory_xact_lock({_CLAIM_LOCK});"  # noqa: S608 (constants)
    f" SET LOCAL enable_bitmapscan = off; {SET_CUSTOM_PLANS}; {NO_FLUSH_WAIT};"
    " UPDATE notify.delivery SET state = 'pending', claim_token = NULL"
    " WHERE state = 'sending' AND lease_until < now()"
)


async def release_dead_holders(conn: Connection) -> int:
    """Give back what processes that died were sending (`redline.pg.holders`); returns how
    many. Run every few seconds rather than with each claim: reading `pg_locks` holds the lock
    manager's partitions for a moment, which every transaction of the server waits on."""
    released = await conn.execute(
        "UPDATE notify.delivery SET state = 'pending', claim_token = NULL, holder = NULL"  # noqa: S608 (constant)
        " WHERE state = 'sending' AND holder IS NOT NULL"
        f" AND holder NOT IN ({LIVE_HOLDERS})"
    )
    return int(released.split()[-1])


# The claim itself, one statement. Each URL's lines are visited in turn, in ordering-key order
# from just after the line the last claim took from (`notify.delivery_turn`, shared by every
# replica) and round again, and the visit stops as soon as the URL's free places are filled: a
# claim reads about as many lines as it takes, however many thousands of documents wait behind
# a receiver, and every line gets its turn.
#
# $1 the claim's limit, $2 the per-URL limit across replicas, $3 the lease in seconds, $4 the
# run limit of a URL not named, $5 the places of a URL not named (NULL: no bound), $6 to $8 the
# named URLs with their places and run limits, $9 the claim's token, $10 the claiming process.
_CLAIM = f"""
WITH RECURSIVE line_urls AS (
    -- Each URL with a line, one index probe per URL (a loose index scan).
    (SELECT url FROM notify.delivery WHERE {IN_LINE} ORDER BY url LIMIT 1)
    UNION ALL
    SELECT next.url FROM line_urls u, LATERAL (
        SELECT url FROM notify.delivery WHERE {IN_LINE} AND url > u.url
        ORDER BY url LIMIT 1
    ) next
), retry_urls AS (
    -- Each URL with a retry waiting apart from its line; one that holds its line
    -- has its URL in line_urls.
    (SELECT url FROM notify.delivery WHERE {RETRY_APART} ORDER BY url LIMIT 1)
    UNION ALL
    SELECT next.url FROM retry_urls u, LATERAL (
        SELECT url FROM notify.delivery WHERE {RETRY_APART} AND url > u.url
        ORDER BY url LIMIT 1
    ) next
), claimed AS (
    -- The places each URL has taken: deliveries in flight, and held retries not
    -- yet due. Such a retry is the first of its line, which no claim takes from
    -- until it is due: counted, it keeps the lines a visit passes over without
    -- taking anything within the URL's limit. (Each was in flight before it
    -- failed, so together they stay within the limit.)
    SELECT url, count(*) AS n FROM (
        SELECT url FROM notify.delivery WHERE state = 'sending'
        UNION ALL
        SELECT url FROM notify.delivery
        WHERE {HELD_RETRY} AND next_attempt_at > now()
    ) taken GROUP BY url
), free AS (
    SELECT * FROM (
        SELECT u.url, coalesce(t.after_key, '') AS after,
               least($2 - coalesce(k.n, 0), coalesce(w.places, $5, $2)) AS places,
               coalesce(w.run_limit, $4) AS run_limit
        FROM (SELECT url FROM line_urls UNION SELECT url FROM retry_urls) u
        LEFT JOIN claimed k USING (url)
        LEFT JOIN notify.delivery_turn t USING (url)
        LEFT JOIN unnest($6::text[], $7::int[], $8::int[]) AS w (url, places, run_limit)
            ON w.url COLLATE "C" = u.url
    ) f WHERE places > 0
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
                     WHERE {IN_LINE} AND url = f.url
                       AND ordering_key > l.ordering_key
                     ORDER BY ordering_key, id LIMIT 1)
                    UNION ALL
                    (SELECT ordering_key, id, state, next_attempt_at, true
                     FROM notify.delivery
                     WHERE {IN_LINE} AND url = f.url AND NOT l.wrapped
                     ORDER BY ordering_key, id LIMIT 1)
                    LIMIT 1
                ) head WHERE NOT (head.wrapped AND head.ordering_key > f.after)
            )
            -- From each line whose first delivery is due, its run: up to run_limit
            -- deliveries in order, up to the first one not yet due. (No URL
            -- gives more than the whole claim may take.) A held retry that is due
            -- starts a run like a delivery never tried; one not yet due, or in
            -- flight, yields nothing, and neither does the rest of its line.
            SELECT run.id, l.ordering_key, l.next_attempt_at AS run_at,
                   l.id AS run_id, run.place_in_run, true AS in_line
            FROM lines l, LATERAL (
                SELECT id, place_in_run FROM (
                    SELECT id, row_number() OVER (ORDER BY id) AS place_in_run,
                           bool_and(state = 'pending' AND next_attempt_at <= now())
                               OVER (ORDER BY id) AS all_due
                    FROM (SELECT id, state, next_attempt_at FROM notify.delivery
                          WHERE {IN_LINE} AND url = f.url
                            AND ordering_key = l.ordering_key
                          ORDER BY id LIMIT f.run_limit) line
                ) line WHERE all_due
            ) run
            WHERE l.state = 'pending' AND l.next_attempt_at <= now()
            LIMIT least(f.places, $1)
        )
        UNION ALL
        (
            SELECT id, ordering_key, next_attempt_at, id, 1, false
            FROM notify.delivery
            WHERE {RETRY_APART} AND url = f.url AND next_attempt_at <= now()
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
SET state = 'sending', claim_token = $9, holder = $10,
    lease_until = now() + make_interval(secs => $3)
WHERE d.id = ANY (ARRAY(SELECT id FROM picked))
RETURNING d.id, d.webhook_id, d.workspace_id, d.api_key, d.kind, d.url, d.ordering_key,
          (SELECT body FROM notify.delivery_body b WHERE b.delivery_id = d.id),
          d.attempts, d.round_failures, d.claim_token, d.retry_holds_line, d.target
"""  # noqa: S608 (this module's constants)


async def claim(
    conn: Connection,
    limit: int,
    per_url_limit: int,
    lease_s: float,
    run_limit: int,
    wanted: Mapping[str, Wanted] | None = None,
    wanted_otherwise: int | None = None,
    *,
    token: str | None = None,
    holder: int | None = None,
) -> list[ClaimedDelivery]:
    """Claim up to `limit` due deliveries for this worker: of a URL named in `wanted`, no more
    than its places, in runs of up to its run limit; of any other, no more than
    `wanted_otherwise` (no such bound if None), in runs of up to `run_limit`.

    Per URL and ordering key (a line), deliveries holding their place in line go in order: one
    in flight or never tried holds back those after it, so a healthy receiver gets them in
    order. One that failed and waits for its retry holds nothing back (and is claimable itself
    once due), unless its retry holds its line (`retry_holds_line`): then it stays first in
    line, holds back the rest until it succeeds or fails for good, and is claimed through its
    line once due, as the head of a run. From a line with nothing in flight, a claim takes a
    run: up to `run_limit` deliveries from its first, up to the first not yet due, which the
    worker sends one after another. No URL has more than `per_url_limit` claimed at once across
    replicas, and a run cut short by a limit keeps its start; a held retry not yet due takes a
    place of that limit too, as it keeps its line from moving (and so each claim still reads
    no more lines of a URL than its limit and what it takes, however many of its lines wait
    for a retry). Claims whose lease ran out are taken back first. The claim names the process
    numbered `holder` (None: the lease alone decides), whose claims `release_dead_holders`
    gives back once it dies.
    Each URL's lines take turns (see `_CLAIM`).

    Every delivery of the claim gets `token` (a new one if None) as its claim token: a worker
    that knows the token before the answer comes can give the claim back even if the answer
    never reaches it (see `release_claim`).
    """
    wanted = wanted or {}
    async with conn.transaction():
        await conn.execute(_CLAIM_PROLOGUE)
        rows = await conn.fetch(
            _CLAIM,
            limit,
            per_url_limit,
            lease_s,
            run_limit,
            wanted_otherwise,
            list(wanted.keys()),
            [want.places for want in wanted.values()],
            [want.run_limit for want in wanted.values()],
            token or str(uuid.uuid4()),
            holder,
        )
    return sorted((ClaimedDelivery(**dict(row)) for row in rows), key=lambda d: d.id)


# What the worker makes of its claims


# What `_RECORD` takes of each result, one array a column, in its parameters' order.
_RECORDED = (
    "delivery_id",
    "claim_token",
    "attempt",
    "started_at",
    "status",
    "latency_ms",
    "error",
    "state",
    "round_failures",
    "next_attempt_at",
)
_RECORD = """
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
"""


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
        await conn.execute(_RECORD, *_columns(results, _RECORDED))


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


# Upkeep: what the queue no longer needs


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


# Receivers' sending slots (see `rates`), taken one at a time


class Slot(NamedTuple):
    at: dt.datetime  # the database's clock
    wait_s: float  # from now until then; 0 when the slot is now


async def take_slot(conn: Connection, receiver: str, gap_s: float) -> Slot:
    """The receiver's next free sending slot (now, if it has been idle for `gap_s`), the one after
    it moved `gap_s` on. Rows are locked one at a time, so concurrent senders of any replica
    get slots `gap_s` apart."""
    row = await conn.fetchrow(
        """
        INSERT INTO notify.delivery_rate AS r (receiver, next_at)
        VALUES ($1, clock_timestamp() + make_interval(secs => $2))
        ON CONFLICT (receiver) DO UPDATE
            SET next_at = greatest(r.next_at, clock_timestamp()) + make_interval(secs => $2)
        RETURNING next_at - make_interval(secs => $2) AS slot,
                  greatest(0, extract(epoch FROM next_at - make_interval(secs => $2)
                                                 - clock_timestamp()))::float8 AS wait_s
        """,
        receiver,
        gap_s,
    )
    assert row is not None
    return Slot(row["slot"], row["wait_s"])


async def forget_idle_rates(conn: Connection, idle_s: float) -> int:
    """Forget receivers whose next slot has been free for more than `idle_s`: their next send
    takes a slot at once either way."""
    status = await conn.execute(
        "DELETE FROM notify.delivery_rate"
        " WHERE next_at < clock_timestamp() - make_interval(secs => $1)",
        idle_s,
    )
    return int(status.split()[-1])


# The delivery log the API reads and replays


class DeliveryRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    webhook_id: str
    event_id: str
    event_type: str
    target: str
    url: str
    state: str
    attempts: int
    next_attempt_at: dt.datetime
    last_status: int | None
    last_error: str | None
    created_at: dt.datetime
    finished_at: dt.datetime | None


class AttemptRow(msgspec.Struct, frozen=True, kw_only=True):
    delivery_id: int
    attempt: int
    started_at: dt.datetime
    status: int | None
    latency_ms: float
    error: str | None


class DeliveryFilter(msgspec.Struct, frozen=True, kw_only=True):
    workspace_id: str
    api_key: str
    state: str | None = None
    event_types: list[str] | None = None
    created_after: dt.datetime | None = None
    created_before: dt.datetime | None = None
    # Keyset: the last row of the previous page (newest first).
    before: tuple[dt.datetime, int] | None = None


_LIST_COLUMNS = (
    "id, webhook_id, event_id, event_type, target, url, state, attempts, next_attempt_at,"
    " last_status, last_error, created_at, finished_at"
)


# What a delivery and its attempt log weigh in a page: its texts, and each attempt's error and
# about as much again for the attempt's other fields.
_ATTEMPT_BYTES = 128
_PAGE = (
    f"SELECT {_LIST_COLUMNS},"  # noqa: S608 (fixed column list)
    " octet_length(webhook_id) + octet_length(event_id) + octet_length(event_type)"
    " + octet_length(url) + coalesce(octet_length(last_error), 0)"
    " + (SELECT coalesce(sum(coalesce(octet_length(a.error), 0) + $11), 0)"
    " FROM notify.delivery_attempt a WHERE a.delivery_id = d.id) AS row_bytes"
    " FROM notify.delivery d"
    " WHERE workspace_id = $1 AND api_key = $2"
    " AND ($3::text IS NULL OR state = $3)"
    " AND ($4::text[] IS NULL OR event_type = ANY($4))"
    " AND ($5::timestamptz IS NULL OR created_at >= $5)"
    " AND ($6::timestamptz IS NULL OR created_at <= $6)"
    " AND ($7::timestamptz IS NULL OR (created_at, id) < ($7, $8))"
    " ORDER BY created_at DESC, id DESC LIMIT $9 + 1"
)
_LIST = within_byte_budget(
    _PAGE,
    order="q.created_at DESC, q.id DESC",
    row_bytes="q.row_bytes",
    page_size="$9",
    budget="$10",
)
_ROW_FIELDS = DeliveryRow.__struct_fields__


async def list_deliveries(
    conn: Connection, where: DeliveryFilter, size: int, byte_budget: int
) -> tuple[list[DeliveryRow], bool]:
    """One key's deliveries, newest first: at most `size` of them and `byte_budget` bytes of
    them with their attempt logs (redline.pg.pages), and whether more follow. `$n IS NULL OR …`
    keeps it one fixed statement."""
    rows = await conn.fetch(
        _LIST,
        where.workspace_id,
        where.api_key,
        where.state,
        where.event_types,
        where.created_after,
        where.created_before,
        where.before[0] if where.before else None,
        where.before[1] if where.before else None,
        size,
        byte_budget,
        _ATTEMPT_BYTES,
    )
    found = [DeliveryRow(**{name: row[name] for name in _ROW_FIELDS}) for row in rows]
    return found, has_more(rows)


async def attempts_of(conn: Connection, delivery_ids: Sequence[int]) -> list[AttemptRow]:
    rows = await conn.fetch(
        "SELECT delivery_id, attempt, started_at, status, latency_ms, error"
        " FROM notify.delivery_attempt WHERE delivery_id = ANY($1::bigint[])"
        " ORDER BY delivery_id, attempt",
        list(delivery_ids),
    )
    return [AttemptRow(**dict(row)) for row in rows]


async def states_of(
    conn: Connection, workspace_id: str, api_key: str, webhook_ids: Sequence[str]
) -> dict[str, tuple[str, int]]:
    """State and attempt count per known webhook id, locked for the caller's transaction.

    Rows are locked in id order, as the worker's statements lock them (see `record`)."""
    rows = await conn.fetch(
        "SELECT webhook_id, state, attempts FROM notify.delivery"
        " WHERE workspace_id = $1 AND api_key = $2 AND webhook_id = ANY($3::text[])"
        " ORDER BY id FOR UPDATE",
        workspace_id,
        api_key,
        list(webhook_ids),
    )
    return {row["webhook_id"]: (row["state"], row["attempts"]) for row in rows}


async def requeue(
    conn: Connection, workspace_id: str, api_key: str, webhook_ids: Sequence[str]
) -> None:
    """Make failed or waiting deliveries due now, with their retry schedule started again."""
    if not webhook_ids:
        return
    await conn.execute(
        "UPDATE notify.delivery SET state = 'pending', round_failures = 0,"
        " next_attempt_at = now(), finished_at = NULL"
        " WHERE workspace_id = $1 AND api_key = $2 AND webhook_id = ANY($3::text[])"
        " AND state IN ('pending', 'failed')",
        workspace_id,
        api_key,
        list(webhook_ids),
    )
    await conn.execute("SELECT pg_notify($1, '')", NOTIFY_CHANNEL)
