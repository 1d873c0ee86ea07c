from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from redline.pg import EventTooLarge, claim_event, migrate, write_events
from redline.pg.outbox import claim_unsent, delete_published
from redline.proto import request_context
from redline.proto.events import ApiKeyCreated, KeyRevoked, decode_event

SCHEMA = "svc"


@pytest.fixture
async def conn(database_url: str, tmp_path: Path) -> AsyncIterator[asyncpg.Connection]:
    conn = await asyncpg.connect(database_url)
    try:
        await migrate(conn, SCHEMA, tmp_path)
        yield conn
    finally:
        await conn.close()


@pytest.fixture
async def other_conn(
    database_url: str, conn: asyncpg.Connection
) -> AsyncIterator[asyncpg.Connection]:
    other = await asyncpg.connect(database_url)
    try:
        yield other
    finally:
        await other.close()


def revoked(key: str) -> KeyRevoked:
    return KeyRevoked(workspaceId="ws_1", credential="apiKey", apiKey=key)


async def claim_all(conn: asyncpg.Connection) -> list[str]:
    async with conn.transaction():
        rows = await claim_unsent(conn, SCHEMA, 100)
    assert rows is not None
    return [row.id for row in rows]


async def test_events_of_a_rolled_back_transaction_are_not_queued(
    conn: asyncpg.Connection,
) -> None:
    transaction = conn.transaction()
    await transaction.start()
    await write_events(conn, SCHEMA, [revoked("key_1")])
    await transaction.rollback()

    assert await claim_all(conn) == []
    assert await conn.fetchval("SELECT count(*) FROM svc.outbox") == 0


async def test_committed_events_are_claimed_in_commit_order(conn: asyncpg.Connection) -> None:
    first = [
        revoked("key_1"),
        ApiKeyCreated(workspaceId="ws_1", apiKey="key_2", apiKeyName="ci", keyType="server"),
    ]
    second = [revoked("key_3")]
    async with conn.transaction():
        await write_events(conn, SCHEMA, first)
    async with conn.transaction():
        await write_events(conn, SCHEMA, second)

    async with conn.transaction():
        rows = await claim_unsent(conn, SCHEMA, 100)

    assert rows is not None
    assert [row.id for row in rows] == [e.id for e in first + second]
    assert [row.subject for row in rows] == [
        "evt.identity.key.revoked",
        "evt.identity.apikey.created",
        "evt.identity.key.revoked",
    ]
    assert [decode_event(row.payload) for row in rows] == first + second
    assert rows[0].seq < rows[1].seq < rows[2].seq


async def test_claim_returns_at_most_the_limit_oldest_first(conn: asyncpg.Connection) -> None:
    events = [revoked(f"key_{i}") for i in range(5)]
    async with conn.transaction():
        await write_events(conn, SCHEMA, events)

    async with conn.transaction():
        rows = await claim_unsent(conn, SCHEMA, 2)

    assert rows is not None
    assert [row.id for row in rows] == [events[0].id, events[1].id]


async def test_writing_no_events_is_allowed(conn: asyncpg.Connection) -> None:
    async with conn.transaction():
        await write_events(conn, SCHEMA, [])

    assert await claim_all(conn) == []


async def test_published_events_are_deleted_and_not_claimed_again(
    conn: asyncpg.Connection,
) -> None:
    events = [revoked("key_1"), revoked("key_2"), revoked("key_3")]
    async with conn.transaction():
        await write_events(conn, SCHEMA, events)

    async with conn.transaction():
        rows = await claim_unsent(conn, SCHEMA, 2)
        assert rows is not None
        await delete_published(conn, SCHEMA, [row.seq for row in rows])

    assert await claim_all(conn) == [events[2].id]
    assert await conn.fetchval("SELECT count(*) FROM svc.outbox") == 1


async def test_committing_events_notifies_listeners(
    conn: asyncpg.Connection, other_conn: asyncpg.Connection
) -> None:
    heard: asyncio.Queue[str] = asyncio.Queue()
    await other_conn.add_listener("redline_outbox", lambda *args: heard.put_nowait(args[3]))
    async with conn.transaction():
        await write_events(conn, SCHEMA, [revoked("key_1")])
        await other_conn.execute("SELECT 1")
        assert heard.empty()

    assert await asyncio.wait_for(heard.get(), timeout=5) == SCHEMA


async def test_only_one_relay_claims_a_schema_at_a_time(
    conn: asyncpg.Connection, other_conn: asyncpg.Connection
) -> None:
    async with conn.transaction():
        await write_events(conn, SCHEMA, [revoked("key_1")])

    async with conn.transaction():
        held = await claim_unsent(conn, SCHEMA, 100)
        async with other_conn.transaction():
            blocked = await claim_unsent(other_conn, SCHEMA, 100)

    assert held is not None
    assert len(held) == 1
    assert blocked is None
    # The claim ends with the transaction that made it.
    assert await claim_all(other_conn) == [held[0].id]


async def test_claims_of_different_schemas_do_not_block_each_other(
    conn: asyncpg.Connection, other_conn: asyncpg.Connection, tmp_path: Path
) -> None:
    await migrate(conn, "other", tmp_path)

    async with conn.transaction():
        held = await claim_unsent(conn, SCHEMA, 100)
        async with other_conn.transaction():
            elsewhere = await claim_unsent(other_conn, "other", 100)

    assert held == []
    assert elsewhere == []


async def test_inbox_claims_an_event_once_per_consumer(conn: asyncpg.Connection) -> None:
    assert await claim_event(conn, SCHEMA, "search", "evt_1") is True
    assert await claim_event(conn, SCHEMA, "search", "evt_1") is False
    assert await claim_event(conn, SCHEMA, "billing", "evt_1") is True
    assert await claim_event(conn, SCHEMA, "search", "evt_2") is True


async def test_inbox_claim_of_a_rolled_back_transaction_is_forgotten(
    conn: asyncpg.Connection,
) -> None:
    transaction = conn.transaction()
    await transaction.start()
    assert await claim_event(conn, SCHEMA, "search", "evt_1") is True
    await transaction.rollback()

    assert await claim_event(conn, SCHEMA, "search", "evt_1") is True


async def test_rows_behind_an_older_open_transaction_wait_for_it(
    database_url: str, conn: asyncpg.Connection
) -> None:
    """A transaction that started first but commits last must not see its event overtaken."""
    older = await asyncpg.connect(database_url)
    newer = await asyncpg.connect(database_url)
    try:
        older_tx = older.transaction()
        await older_tx.start()
        await write_events(older, SCHEMA, [revoked("first")])
        await write_events(newer, SCHEMA, [revoked("second")])  # commits at once
        async with conn.transaction():
            assert await claim_unsent(conn, SCHEMA, 10) == []
        await older_tx.commit()
        async with conn.transaction():
            claimed = await claim_unsent(conn, SCHEMA, 10)
        assert claimed is not None
        keys = [getattr(decode_event(row.payload), "apiKey", None) for row in claimed]
        assert keys == ["first", "second"]
    finally:
        await older.close()
        await newer.close()


async def test_an_event_too_large_for_nats_is_refused_before_anything_is_written(
    conn: asyncpg.Connection,
) -> None:
    with pytest.raises(EventTooLarge, match="too large"):
        async with conn.transaction():
            await write_events(conn, SCHEMA, [revoked("k" * (1 << 20))])
    assert await conn.fetchval("SELECT count(*) FROM svc.outbox") == 0


async def test_events_keep_the_id_of_the_request_that_wrote_them(
    conn: asyncpg.Connection,
) -> None:
    with request_context.serving("req-1", "ws_1"):
        async with conn.transaction():
            await write_events(conn, SCHEMA, [revoked("key_1"), revoked("key_2")])
    async with conn.transaction():
        await write_events(conn, SCHEMA, [revoked("key_3")])

    async with conn.transaction():
        rows = await claim_unsent(conn, SCHEMA, 100)

    assert rows is not None
    assert [row.request_id for row in rows] == ["req-1", "req-1", None]


async def test_an_outbox_of_an_earlier_version_gains_the_request_id_column(
    conn: asyncpg.Connection, tmp_path: Path
) -> None:
    await conn.execute("ALTER TABLE svc.outbox DROP COLUMN request_id")
    await conn.execute(
        "INSERT INTO svc.outbox (id, subject, payload) VALUES ('old', 'evt.x', '\\x7b7d')"
    )

    await migrate(conn, SCHEMA, tmp_path)

    async with conn.transaction():
        rows = await claim_unsent(conn, SCHEMA, 100)
    assert rows is not None
    assert [(row.id, row.request_id) for row in rows] == [("old", None)]
