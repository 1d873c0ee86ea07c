"""The delivery queue's claim: which due deliveries a worker may send now, taken in one short
statement. The rest of the queue's SQL is `storage`.

Claims are serialised by a transaction-level advisory lock: a claim is one short statement, and
serialising it makes the per-URL concurrency limit and the per-key ordering exact across
replicas, where `SKIP LOCKED` alone would let two replicas pick neighbours of one key.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import NamedTuple

from redline.notify.deliveries.storage import (
    HELD_RETRY,
    IN_LINE,
    NO_FLUSH_WAIT,
    RETRY_APART,
    ClaimedDelivery,
)
from redline.pg import Connection
from redline.pg.plans import SET_CUSTOM_PLANS

# Any constant shared by every replica; the claim statement holds it for microseconds.
_CLAIM_LOCK = 0x6E6F74696679  # "notify"


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
    for a retry). Claims whose lease ran out (a replica died mid-send) are taken back first.

    Each URL's lines are visited in turn, in ordering-key order from just after the line the
    last claim took from (`notify.delivery_turn`, shared by every replica) and round again, and
    the visit stops as soon as the URL's free places are filled: a claim reads about as many
    lines as it takes, however many thousands of documents wait behind a receiver, and every
    line gets its turn.

    Every delivery of the claim gets `token` (a new one if None) as its claim token: a worker
    that knows the token before the answer comes can give the claim back even if the answer
    never reaches it (see `release_claim`).
    """
    wanted = wanted or {}
    async with conn.transaction():
        # One round trip (the simple protocol takes several statements): the lock, plain index
        # scans, plans for the queue as it is now (see redline.pg.plans), no wait for the
        # commit's flush, and claims whose lease ran out given back. Bitmap scans would never
        # mark the index entries of finished deliveries dead, so every claim would visit each
        # of them in the heap again until a vacuum; an index scan marks them once.
        await conn.execute(
            f"SELECT pg_advisory_xact_lock({_CLAIM_LOCK});"  # noqa: S608 (constants)
            f" SET LOCAL enable_bitmapscan = off; {SET_CUSTOM_PLANS}; {NO_FLUSH_WAIT};"
            " UPDATE notify.delivery SET state = 'pending', claim_token = NULL"
            " WHERE state = 'sending' AND lease_until < now()"
        )
        rows = await conn.fetch(
            f"""
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
            SET state = 'sending', claim_token = $9,
                lease_until = now() + make_interval(secs => $3)
            WHERE d.id = ANY (ARRAY(SELECT id FROM picked))
            RETURNING d.id, d.webhook_id, d.workspace_id, d.api_key, d.kind, d.url, d.ordering_key,
                      (SELECT body FROM notify.delivery_body b WHERE b.delivery_id = d.id),
                      d.attempts, d.round_failures, d.claim_token, d.retry_holds_line, d.target
            """,  # noqa: S608 (this module's constants)
            limit,
            per_url_limit,
            lease_s,
            run_limit,
            wanted_otherwise,
            list(wanted.keys()),
            [want.places for want in wanted.values()],
            [want.run_limit for want in wanted.values()],
            token or str(uuid.uuid4()),
        )
    return sorted((ClaimedDelivery(**dict(row)) for row in rows), key=lambda d: d.id)
