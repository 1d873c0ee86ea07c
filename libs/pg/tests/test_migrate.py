from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from redline.pg import MigrationError, migrate
from redline.pg.migrate import load_migrations

FIRST = "CREATE TABLE note (id int PRIMARY KEY);\n"
SECOND = "ALTER TABLE note ADD COLUMN body text NOT NULL DEFAULT '';\n"
OUTBOX_COLUMNS = ["seq", "id", "subject", "payload", "created_at", "xid", "request_id"]


@pytest.fixture
async def conn(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    conn = await asyncpg.connect(database_url)
    try:
        yield conn
    finally:
        await conn.close()


@pytest.fixture
def migrations(tmp_path: Path) -> Path:
    directory = tmp_path / "migrations"
    directory.mkdir()
    (directory / "0001_x.sql").write_text(FIRST)
    (directory / "0002_y.sql").write_text(SECOND)
    return directory


async def recorded(conn: asyncpg.Connection, schema: str = "svc") -> list[tuple[int, str]]:
    query = f"SELECT version, name FROM {schema}.schema_migrations ORDER BY 1"  # noqa: S608
    rows = await conn.fetch(query)
    return [(row["version"], row["name"]) for row in rows]


async def columns(conn: asyncpg.Connection, schema: str, table: str) -> list[str]:
    rows = await conn.fetch(
        "SELECT column_name FROM information_schema.columns"
        " WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
        schema,
        table,
    )
    return [row["column_name"] for row in rows]


async def test_migrations_apply_in_order_inside_the_schema(
    conn: asyncpg.Connection, migrations: Path
) -> None:
    applied = await migrate(conn, "svc", migrations)

    assert applied == [1, 2]
    assert await columns(conn, "svc", "note") == ["id", "body"]
    assert await conn.fetchval("SELECT to_regclass('public.note')") is None
    assert await recorded(conn) == [(1, "x"), (2, "y")]


async def test_second_run_applies_nothing(conn: asyncpg.Connection, migrations: Path) -> None:
    await migrate(conn, "svc", migrations)

    assert await migrate(conn, "svc", migrations) == []
    assert await recorded(conn) == [(1, "x"), (2, "y")]


async def test_new_file_is_applied_on_the_next_run(
    conn: asyncpg.Connection, migrations: Path
) -> None:
    await migrate(conn, "svc", migrations)
    (migrations / "0003_z.sql").write_text("CREATE INDEX note_body ON note (body);")

    assert await migrate(conn, "svc", migrations) == [3]
    assert await conn.fetchval("SELECT to_regclass('svc.note_body')") is not None


async def test_schemas_keep_their_own_history(conn: asyncpg.Connection, migrations: Path) -> None:
    await migrate(conn, "svc", migrations)

    assert await migrate(conn, "other", migrations) == [1, 2]
    assert await recorded(conn, "other") == [(1, "x"), (2, "y")]
    assert await columns(conn, "other", "note") == ["id", "body"]


async def test_empty_directory_creates_the_outbox_and_inbox(
    conn: asyncpg.Connection, tmp_path: Path
) -> None:
    assert await migrate(conn, "svc", tmp_path) == []

    assert await columns(conn, "svc", "outbox") == OUTBOX_COLUMNS
    assert await columns(conn, "svc", "inbox") == ["consumer", "event_id", "processed_at"]
    assert await recorded(conn) == []


async def test_an_outbox_of_the_earlier_layout_loses_its_published_rows(
    conn: asyncpg.Connection, tmp_path: Path
) -> None:
    # Earlier versions kept published rows a day, marked by sent_at.
    await conn.execute(
        "CREATE SCHEMA svc;"
        " CREATE TABLE svc.outbox (seq bigserial PRIMARY KEY, id text NOT NULL UNIQUE,"
        " subject text NOT NULL, payload bytea NOT NULL,"
        " created_at timestamptz NOT NULL DEFAULT now(), sent_at timestamptz);"
        " CREATE INDEX outbox_unsent ON svc.outbox (seq) WHERE sent_at IS NULL;"
        " INSERT INTO svc.outbox (id, subject, payload, sent_at) VALUES"
        " ('published', 'evt.svc.x', '', now()), ('waiting', 'evt.svc.x', '', NULL)"
    )

    await migrate(conn, "svc", tmp_path)
    await migrate(conn, "svc", tmp_path)  # and again, as every start does

    assert await columns(conn, "svc", "outbox") == OUTBOX_COLUMNS
    assert [r["id"] for r in await conn.fetch("SELECT id FROM svc.outbox")] == ["waiting"]


async def test_editing_an_applied_file_stops_the_run(
    conn: asyncpg.Connection, migrations: Path
) -> None:
    await migrate(conn, "svc", migrations)
    (migrations / "0001_x.sql").write_text(FIRST + "-- tidied up\n")
    (migrations / "0003_z.sql").write_text("CREATE TABLE later (id int);")

    with pytest.raises(MigrationError, match="0001_x changed after it was applied"):
        await migrate(conn, "svc", migrations)

    assert await conn.fetchval("SELECT to_regclass('svc.later')") is None
    assert await recorded(conn) == [(1, "x"), (2, "y")]


@pytest.mark.parametrize(
    "name",
    ["1_x.sql", "00001_x.sql", "0003-z.sql", "0003_Upper.sql", "0003_.sql", "0003_z.SQL.sql"],
)
def test_badly_named_file_is_refused(migrations: Path, name: str) -> None:
    (migrations / name).write_text("SELECT 1;")

    with pytest.raises(MigrationError, match=r"NNNN_name\.sql"):
        load_migrations(migrations)


async def test_badly_named_file_stops_the_run_before_anything_is_applied(
    conn: asyncpg.Connection, migrations: Path
) -> None:
    (migrations / "3_z.sql").write_text("SELECT 1;")

    with pytest.raises(MigrationError):
        await migrate(conn, "svc", migrations)

    assert await conn.fetchval("SELECT to_regnamespace('svc')") is None


def test_duplicate_numbers_are_refused(migrations: Path) -> None:
    (migrations / "0002_also_two.sql").write_text("SELECT 1;")

    with pytest.raises(MigrationError, match="duplicate"):
        load_migrations(migrations)


async def test_failing_migration_leaves_nothing_behind(
    conn: asyncpg.Connection, migrations: Path
) -> None:
    bad = migrations / "0003_bad.sql"
    bad.write_text("CREATE TABLE half (id int);\nINSERT INTO note (id) VALUES (1);\nSELECT 1/0;\n")

    with pytest.raises(asyncpg.DivisionByZeroError):
        await migrate(conn, "svc", migrations)

    assert await recorded(conn) == [(1, "x"), (2, "y")]
    assert await conn.fetchval("SELECT to_regclass('svc.half')") is None
    assert await conn.fetchval("SELECT count(*) FROM svc.note") == 0

    # Fixed, it applies on the next run: neither the lock nor the connection is left stuck.
    bad.write_text("CREATE TABLE half (id int);\n")
    assert await asyncio.wait_for(migrate(conn, "svc", migrations), timeout=10) == [3]


RUNNER = """
import asyncio, json, os, sys
from pathlib import Path

import asyncpg

from redline.pg import migrate


async def main():
    conn = await asyncpg.connect(os.environ["TEST_DATABASE_URL"])
    try:
        print("ready", flush=True)
        sys.stdin.readline()
        applied = await migrate(conn, "svc", Path(os.environ["TEST_MIGRATIONS"]))
    finally:
        await conn.close()
    print(json.dumps(applied), flush=True)


asyncio.run(main())
"""


async def test_runners_in_two_processes_apply_each_migration_once(
    database_url: str, tmp_path: Path
) -> None:
    migrations = tmp_path / "migrations"
    migrations.mkdir()
    # Slow, and not idempotent: a second runner that did not wait would fail on CREATE TABLE.
    (migrations / "0001_x.sql").write_text("SELECT pg_sleep(0.5);\nCREATE TABLE slow (id int);\n")
    (migrations / "0002_y.sql").write_text("SELECT pg_sleep(0.5);\nCREATE TABLE slower (id int);\n")
    env = {**os.environ, "TEST_DATABASE_URL": database_url, "TEST_MIGRATIONS": str(migrations)}
    runners = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            RUNNER,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for _ in range(2)
    ]
    # Both are connected before either starts, so their runs overlap.
    for runner in runners:
        assert runner.stdout is not None
        assert await asyncio.wait_for(runner.stdout.readline(), timeout=30) == b"ready\n"
    results = await asyncio.wait_for(
        asyncio.gather(*(runner.communicate(b"go\n") for runner in runners)), timeout=30
    )

    for runner, (_, stderr) in zip(runners, results, strict=True):
        assert runner.returncode == 0, stderr.decode()
    applied = sorted(json.loads(stdout) for stdout, _ in results)
    assert applied == [[], [1, 2]]
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch(
            "SELECT version, count(*) AS n FROM svc.schema_migrations GROUP BY 1 ORDER BY 1"
        )
        assert [(row["version"], row["n"]) for row in rows] == [(1, 1), (2, 1)]
        assert await conn.fetchval("SELECT to_regclass('svc.slower')") is not None
    finally:
        await conn.close()


CONCURRENT_INDEX = (
    "-- redline: no-transaction\nCREATE INDEX CONCURRENTLY note_body ON note (body);\n"
)


async def test_a_no_transaction_file_builds_an_index_concurrently(
    conn: asyncpg.Connection, migrations: Path
) -> None:
    (migrations / "0003_note_body.sql").write_text(CONCURRENT_INDEX)

    assert await migrate(conn, "svc", migrations) == [1, 2, 3]

    assert await recorded(conn) == [(1, "x"), (2, "y"), (3, "note_body")]
    valid = await conn.fetchval(
        "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('svc.note_body')"
    )
    assert valid is True
    # The schema was the connection's search path only while the file ran.
    assert await conn.fetchval("SHOW search_path") == '"$user", public'


async def test_without_the_marker_a_concurrent_index_is_refused(
    conn: asyncpg.Connection, migrations: Path
) -> None:
    (migrations / "0003_note_body.sql").write_text(CONCURRENT_INDEX.split("\n", 1)[1])

    with pytest.raises(asyncpg.ActiveSQLTransactionError):
        await migrate(conn, "svc", migrations)

    assert await recorded(conn) == [(1, "x"), (2, "y")]


async def test_a_failed_no_transaction_file_is_not_recorded_and_runs_again(
    conn: asyncpg.Connection, migrations: Path
) -> None:
    await migrate(conn, "svc", migrations)
    await conn.execute("INSERT INTO svc.note (id, body) VALUES (1, 'same'), (2, 'same')")
    unique = migrations / "0003_note_body.sql"
    unique.write_text(
        "-- redline: no-transaction\nCREATE UNIQUE INDEX CONCURRENTLY note_body ON note (body);\n"
    )

    with pytest.raises(asyncpg.UniqueViolationError):
        await migrate(conn, "svc", migrations)

    assert await recorded(conn) == [(1, "x"), (2, "y")]
    assert await conn.fetchval("SHOW search_path") == '"$user", public'
    # The failed build left an invalid index; once it is dropped and the data fixed, the file
    # applies on the next run.
    await conn.execute("DROP INDEX svc.note_body")
    await conn.execute("DELETE FROM svc.note WHERE id = 2")
    assert await asyncio.wait_for(migrate(conn, "svc", migrations), timeout=10) == [3]
    assert await recorded(conn) == [(1, "x"), (2, "y"), (3, "note_body")]


async def test_a_runner_waiting_for_the_lock_does_not_hold_up_a_concurrent_index(
    database_url: str, migrations: Path
) -> None:
    # The build under the lock waits for every older snapshot to end, a waiting runner's too.
    (migrations / "0003_slow.sql").write_text("SELECT pg_sleep(0.5);\n")
    (migrations / "0004_note_body.sql").write_text(CONCURRENT_INDEX)
    first, second = await asyncpg.connect(database_url), await asyncpg.connect(database_url)
    try:
        applied = await asyncio.wait_for(
            asyncio.gather(
                migrate(first, "svc", migrations),
                migrate(second, "svc", migrations),
            ),
            timeout=30,
        )
        assert sorted(applied) == [[], [1, 2, 3, 4]]
    finally:
        await first.close()
        await second.close()
