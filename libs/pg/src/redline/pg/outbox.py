"""The transactional outbox: events are rows written in the same transaction as the change they
describe; the relay (redline.bus) publishes them and deletes them. The stream keeps the events
(seven days); the outbox holds only those not yet published. Each row keeps the id of the request
whose work wrote it (`redline.proto.request_context`), which the relay sends as a header.

Also the inbox: consumers record event ids they processed, in the same transaction as the effect,
so a redelivered event does nothing the second time.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from redline.pg.names import schema_name
from redline.pg.pool import Connection
from redline.proto import request_context
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
    created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE {schema}.outbox
    ADD COLUMN IF NOT EXISTS xid xid8 NOT NULL DEFAULT pg_current_xact_id();
-- Null for events written outside any request (background work, rows of earlier versions).
ALTER TABLE {schema}.outbox ADD COLUMN IF NOT EXISTS request_id text;
-- Earlier versions kept published rows for a day, marked by sent_at: drop them and the column
-- (its partial index goes with it).
DO $$
BEGIN
    IF EXISTS (SELECT FROM information_schema.columns WHERE table_schema = '{schema}'
               AND table_name = 'outbox' AND column_name = 'sent_at') THEN
        DELETE FROM {schema}.outbox WHERE sent_at IS NOT NULL;
        ALTER TABLE {schema}.outbox DROP COLUMN sent_at;
    END IF;
END $$;
CREATE TABLE IF NOT EXISTS {schema}.inbox (
    consumer text NOT NULL,
    event_id text NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);
"""


class EventTooLarge(ValueError):
    """An event bigger than the stream takes. The change it records is refused (the caller's
    request made it too large: the HTTP layer answers INVALID_ARGUMENT)."""

    def __init__(self, subject: str, size: int) -> None:
        super().__init__(
            f"The change is too large to record ({size} bytes as the {subject} event;"
            f" the limit is {MAX_EVENT_BYTES})."
        )
        self.message = str(self)


class OutboxRow(msgspec.Struct, frozen=True):
    seq: int
    id: str
    subject: str
    payload: bytes
    request_id: str | None = None


async def write_events(conn: Connection, schema: str, events: Sequence[Event]) -> None:
    """Queue `events` for publishing. Call inside the transaction that makes the change. The
    events carry the id of the request being served, if any."""
    if not events:
        return
    schema = schema_name(schema)
    request_id = request_context.request_id.get()
    rows = [(e.id, e.subject, encode_event(e), request_id) for e in events]
    for _, subject, payload, _ in rows:
        if len(payload) > MAX_EVENT_BYTES:
            # NATS would refuse it and the outbox would stall behind it: refuse the change.
            raise EventTooLarge(subject, len(payload))
    await conn.executemany(
        f"INSERT INTO {schema}.outbox (id, subject, payload, request_id) VALUES ($1, $2, $3, $4)",
        rows,
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
        f"SELECT seq, id, subject, payload, request_id FROM {schema}.outbox"
        " WHERE xid < pg_snapshot_xmin(pg_current_snapshot())"
        " ORDER BY seq LIMIT $1",
        limit,
    )
    return [
        OutboxRow(r["seq"], r["id"], r["subject"], bytes(r["payload"]), r["request_id"])
        for r in rows
    ]


async def delete_published(conn: Connection, schema: str, seqs: Sequence[int]) -> None:
    """Remove rows the stream has acknowledged. A delete writes no new row version and no index
    entries, where marking a row sent rewrote it with its payload."""
    schema = schema_name(schema)
    await conn.execute(f"DELETE FROM {schema}.outbox WHERE seq = ANY($1::bigint[])", list(seqs))


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
