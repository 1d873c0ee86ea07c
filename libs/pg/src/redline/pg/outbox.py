"""The transactional outbox: events are rows written in the same transaction as the change they
describe; the relay (redline.bus) publishes them and marks them sent.

Also the inbox: consumers record event ids they processed, in the same transaction as the effect,
so a redelivered event does nothing the second time.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from redline.envelope.errors import InvalidArgument
from redline.pg.names import schema_name
from redline.pg.pool import Connection
from redline.proto.events import Event, encode_event

NOTIFY_CHANNEL = "redline_outbox"

# NATS's default maximum message is 1 MiB; headers and subject need a little of it.
MAX_EVENT_BYTES = (1 << 20) - 4096

INFRASTRUCTURE_DDL = """
CREATE TABLE IF NOT EXISTS {schema}.outbox (
    seq bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    subject text NOT NULL,
    payload bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    sent_at timestamptz
);
ALTER TABLE {schema}.outbox
    ADD COLUMN IF NOT EXISTS xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX IF NOT EXISTS outbox_unsent ON {schema}.outbox (seq) WHERE sent_at IS NULL;
CREATE TABLE IF NOT EXISTS {schema}.inbox (
    consumer text NOT NULL,
    event_id text NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);
"""


class OutboxRow(msgspec.Struct, frozen=True):
    seq: int
    id: str
    subject: str
    payload: bytes


async def write_events(conn: Connection, schema: str, events: Sequence[Event]) -> None:
    """Queue `events` for publishing. Call inside the transaction that makes the change."""
    if not events:
        return
    schema = schema_name(schema)
    rows = [(e.id, e.subject, encode_event(e)) for e in events]
    for _, subject, payload in rows:
        if len(payload) > MAX_EVENT_BYTES:
            # NATS would refuse it and the outbox would stall behind it: refuse the change.
            raise InvalidArgument(
                f"The change is too large to record ({len(payload)} bytes as the {subject} "
                f"event; the limit is {MAX_EVENT_BYTES})."
            )
    await conn.executemany(
        f"INSERT INTO {schema}.outbox (id, subject, payload) VALUES ($1, $2, $3)", rows
    )
    # Delivered at commit, and only if the transaction commits: wakes the relay without polling.
    await conn.execute("SELECT pg_notify($1, $2)", NOTIFY_CHANNEL, schema)


async def claim_unsent(conn: Connection, schema: str, limit: int) -> list[OutboxRow] | None:
    """Lock the oldest unsent rows for publishing, in a transaction the caller holds.

    Returns None when another relay holds this schema's outbox: one publisher per schema at a
    time keeps events in `seq` order on the stream.
    """
    schema = schema_name(schema)
    locked = await conn.fetchval(
        "SELECT pg_try_advisory_xact_lock(hashtext($1))", f"redline.outbox.{schema}"
    )
    if not locked:
        return None
    # Only rows of transactions older than every transaction still running: a transaction
    # that started earlier may yet commit rows with lower `seq`, and publishing past it would
    # put events on the stream out of `seq` order. `seq` order respects causality: an event
    # written after reading another's committed change always has the higher `seq`.
    rows = await conn.fetch(
        f"SELECT seq, id, subject, payload FROM {schema}.outbox"
        " WHERE sent_at IS NULL AND xid < pg_snapshot_xmin(pg_current_snapshot())"
        " ORDER BY seq LIMIT $1",
        limit,
    )
    return [OutboxRow(r["seq"], r["id"], r["subject"], bytes(r["payload"])) for r in rows]


async def mark_sent(conn: Connection, schema: str, seqs: Sequence[int]) -> None:
    schema = schema_name(schema)
    await conn.execute(
        f"UPDATE {schema}.outbox SET sent_at = now() WHERE seq = ANY($1::bigint[])", list(seqs)
    )


async def purge_sent(conn: Connection, schema: str, older_than_s: int) -> int:
    """Delete rows published more than `older_than_s` ago; returns how many went."""
    schema = schema_name(schema)
    status = await conn.execute(
        f"DELETE FROM {schema}.outbox WHERE sent_at < now() - make_interval(secs => $1)",
        float(older_than_s),
    )
    return int(status.split()[-1])


async def claim_event(conn: Connection, schema: str, consumer: str, event_id: str) -> bool:
    """Record that `consumer` handles `event_id`; False if it already did (a redelivery)."""
    schema = schema_name(schema)
    inserted = await conn.fetchval(
        f"INSERT INTO {schema}.inbox (consumer, event_id) VALUES ($1, $2)"
        " ON CONFLICT DO NOTHING RETURNING true",
        consumer,
        event_id,
    )
    return bool(inserted)
