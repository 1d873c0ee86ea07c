"""Numbered SQL migrations per service schema.

Files are `NNNN_name.sql` in a service's `migrations/` folder. Each runs once, in its own
transaction with `search_path` set to the schema, and is recorded with a checksum. A session-level
advisory lock serialises runners, so several replicas may start at once; an applied file that was
edited afterwards stops start-up rather than leaving schemas to drift apart.

A file whose first line is `-- redline: no-transaction` runs outside a transaction, for statements
PostgreSQL refuses inside one (`CREATE INDEX CONCURRENTLY`, which builds an index on a large table
without blocking writes to it). PostgreSQL runs a string of several statements as one transaction,
so such a file holds one statement. It is recorded only once it succeeded, and a failed one runs
again at the next start: a failed concurrent build leaves an invalid index behind, so leave out
`IF NOT EXISTS`, and start-up stops on the leftover until someone drops it, rather than recording
an index that does not work.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from redline.pg.names import schema_name
from redline.pg.outbox import INFRASTRUCTURE_DDL
from redline.pg.pool import Connection

_LOCK_KEY = 0x5245444C494E45  # "REDLINE": one lock for every schema's runner
_FILE = re.compile(r"^(?P<version>\d{4})_(?P<name>[a-z0-9_]+)\.sql$")
NO_TRANSACTION = "-- redline: no-transaction"
LOCK_POLL_S = 0.05


class MigrationError(RuntimeError):
    pass


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()

    @property
    def in_transaction(self) -> bool:
        return self.sql.split("\n", 1)[0].strip() != NO_TRANSACTION


def load_migrations(directory: Path) -> list[Migration]:
    found: list[Migration] = []
    for path in sorted(directory.glob("*.sql")):
        match = _FILE.match(path.name)
        if not match:
            raise MigrationError(f"migration file name not NNNN_name.sql: {path.name}")
        found.append(Migration(int(match["version"]), match["name"], path.read_text()))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"duplicate migration numbers in {directory}")
    return found


async def migrate(conn: Connection, schema: str, directory: Path) -> list[int]:
    """Apply the pending migrations of `schema`; returns the versions applied now."""
    schema = schema_name(schema)
    migrations = load_migrations(directory)
    await _lock(conn)
    try:
        await conn.execute(
            f"""
            CREATE SCHEMA IF NOT EXISTS {schema};
            CREATE TABLE IF NOT EXISTS {schema}.schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            """
        )
        await conn.execute(INFRASTRUCTURE_DDL.format(schema=schema))
        rows = await conn.fetch(f"SELECT version, checksum FROM {schema}.schema_migrations")
        applied = {row["version"]: row["checksum"] for row in rows}
        done: list[int] = []
        newest = max(applied, default=0)
        for migration in migrations:
            if migration.version in applied:
                if applied[migration.version] != migration.checksum:
                    raise MigrationError(
                        f"{schema} migration {migration.version:04d}_{migration.name} "
                        "changed after it was applied"
                    )
                continue
            if migration.version < newest:
                # A file slipped in below what already ran: applying it now would give this
                # database a history no other database has.
                raise MigrationError(
                    f"{schema} migration {migration.version:04d}_{migration.name} is numbered "
                    f"below the applied {newest:04d}; renumber it"
                )
            await _apply(conn, schema, migration)
            done.append(migration.version)
        return done
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", _LOCK_KEY)


async def _lock(conn: Connection) -> None:
    # Polled rather than waited for with pg_advisory_lock: a statement waiting for the lock holds
    # a snapshot for as long as it waits, and `CREATE INDEX CONCURRENTLY` under the lock waits for
    # every older snapshot to end, so a second runner waiting there would deadlock the first.
    while True:
        if await conn.fetchval("SELECT pg_try_advisory_lock($1)", _LOCK_KEY):
            return
        await asyncio.sleep(LOCK_POLL_S)


async def _apply(conn: Connection, schema: str, migration: Migration) -> None:
    if migration.in_transaction:
        async with conn.transaction():
            await conn.execute(f"SET LOCAL search_path TO {schema}, public")
            await conn.execute(migration.sql)
            await _record(conn, schema, migration)
        return
    await conn.execute(f"SET search_path TO {schema}, public")
    try:
        await conn.execute(migration.sql)
    finally:
        await conn.execute("RESET search_path")
    await _record(conn, schema, migration)


async def _record(conn: Connection, schema: str, migration: Migration) -> None:
    await conn.execute(
        f"INSERT INTO {schema}.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
        migration.version,
        migration.name,
        migration.checksum,
    )
