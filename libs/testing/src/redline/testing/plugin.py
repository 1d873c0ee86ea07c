"""pytest plugin: real PostgreSQL and NATS for every test run, isolated per test.

- PostgreSQL: one server per test session (embedded, in a temp dir), or `REDLINE_DATABASE_URL`'s
  server; each test gets a fresh database on it, dropped afterwards.
- NATS: each test gets its own `nats-server` with JetStream on a free loopback port (about 20 ms to
  start), which a test may stop and start again. With `REDLINE_NATS_URL` set, that server is shared
  and the EVENTS stream is deleted before each test instead.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import secrets
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from redline.local.servers import LocalNats, LocalPostgres
from redline.testing.nats_users import USERS_FILE, nats_users
from redline.testing.split import SplitSystem, run_split_system


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--target",
        default="inproc",
        help=(
            "where tests/api send requests: 'inproc' (the all-in-one app), 'split' (each "
            "service in its own process behind a gateway, started for the session) or a base URL"
        ),
    )


def with_database(url: str, database: str) -> str:
    """`url` pointing at another database on the same server."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + database))


class ExternalNats:
    """A NATS server someone else runs: it cannot be stopped from here."""

    def __init__(self, url: str) -> None:
        self.url = url

    def stop(self) -> None:
        raise RuntimeError("cannot stop an external NATS server (REDLINE_NATS_URL is set)")

    def start(self) -> None:
        raise RuntimeError("cannot start an external NATS server (REDLINE_NATS_URL is set)")


# The tests' server is deleted with the session: what a crash could cost it does not matter,
# and commits that do not wait for the disk make every test's writes cheaper. Its WAL is kept
# short, as its files may live in memory (below).
THROWAWAY_CLUSTER = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_wal_size": "128MB",
    "min_wal_size": "32MB",
}
# Room the tests' server needs where it keeps its files: its template, three test databases at
# a time and its WAL take well under this.
_MEMORY_DIR_ROOM = 2 << 30


def throwaway_dir(prefix: str) -> Path:
    """A new directory for files the session throws away, in memory (/dev/shm) where the machine
    has room there, else in the temporary directory. Every test copies a database from its
    template: on a virtual machine's disk that took 0.4 s, in memory 0.04 s, about half of
    what each test of the API suites spends before it starts."""
    memory = Path("/dev/shm")  # noqa: S108 (mkdtemp makes a new directory only this user reads)
    try:
        roomy = memory.is_dir() and shutil.disk_usage(memory).free > _MEMORY_DIR_ROOM
    except OSError:
        roomy = False
    return Path(tempfile.mkdtemp(prefix=prefix, dir=memory if roomy else None))


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    external = os.environ.get("REDLINE_DATABASE_URL")
    if external:
        yield external
        return
    # Not under pytest's tmp_path: pytest prunes old base temp dirs, which would pull the data
    # directory from under a server another test run is still using.
    data_dir = throwaway_dir("redline-test-pg-") / "data"
    server = LocalPostgres(data_dir, delete_on_stop=True, settings=THROWAWAY_CLUSTER)
    try:
        yield server.url
    finally:
        server.stop()
        shutil.rmtree(data_dir.parent, ignore_errors=True)


@contextlib.asynccontextmanager
async def fresh_database(server_url: str, template: str | None = None) -> AsyncIterator[str]:
    """A new database on the server at `server_url`, a copy of `template` or empty, dropped
    afterwards; yields its URL."""
    name = "redline_test_" + uuid.uuid4().hex[:12]
    copy_of = f' TEMPLATE "{template}"' if template else ""
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"{copy_of}')
    finally:
        await admin.close()
    try:
        yield with_database(server_url, name)
    finally:
        admin = await asyncpg.connect(server_url)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@pytest.fixture(scope="session")
def database_template() -> str | None:
    """The database each test's own is copied from; None for an empty one. A suite whose tests
    all start the whole system overrides it with one the system's migrations were applied to
    (`migrated_template`): copying the schemas costs a fraction of building them per test."""
    return None


@contextlib.contextmanager
def migrated_template(
    server_url: str, apply_migrations: Callable[[str], Coroutine[Any, Any, None]]
) -> Iterator[str]:
    """A database on the server at `server_url` that `apply_migrations(url)` has migrated, for
    the session; yields its name."""
    name = "redline_template_" + uuid.uuid4().hex[:12]
    run_sql(server_url, f'CREATE DATABASE "{name}"')
    try:
        run_on_own_loop(apply_migrations(with_database(server_url, name)))
        yield name
    finally:
        run_sql(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def database_url(
    postgres_server_url: str, database_template: str | None
) -> AsyncIterator[str]:
    """A fresh database for this test: empty, or a copy of `database_template`."""
    async with fresh_database(postgres_server_url, database_template) as url:
        yield url


@pytest.fixture
async def nats_server() -> AsyncIterator[LocalNats | ExternalNats]:
    external = os.environ.get("REDLINE_NATS_URL")
    if external:
        await _reset_external_nats(external)
        yield ExternalNats(external)
        return
    # JetStream's store in memory where there is room: every test creates the stream anew.
    store = throwaway_dir("redline-test-nats-")
    server = LocalNats(store / "nats")
    server.start()
    try:
        yield server
    finally:
        # Nothing of it is kept: no need to wait for JetStream to put its store in order.
        server.stop(graceful=False)
        shutil.rmtree(store, ignore_errors=True)


async def _reset_external_nats(url: str) -> None:
    import nats
    from nats.js.errors import NotFoundError

    from redline.proto.subjects import STREAM

    nc = await nats.connect(url)
    try:
        with contextlib.suppress(NotFoundError):
            await nc.jetstream().delete_stream(STREAM)
    finally:
        await nc.drain()


@pytest.fixture
def nats_url(nats_server: LocalNats | ExternalNats) -> str:
    return nats_server.url


def random_secret_key() -> str:
    return base64.b64encode(secrets.token_bytes(32)).decode()


@pytest.fixture
def runtime_overrides(database_url: str, nats_url: str, tmp_path: Path) -> dict[str, Any]:
    """Settings values that point a service at this test's servers."""
    return {
        "database_url": database_url,
        "nats_url": nats_url,
        "data_dir": str(tmp_path / "data"),
        "secret_key": random_secret_key(),
        "open_signup": True,
    }


@pytest.fixture(scope="session")
def split_system(postgres_server_url: str, pytestconfig: pytest.Config) -> Iterator[SplitSystem]:
    """The split topology for the whole session, on a database and a NATS server of its own.

    The server knows the deployment's NATS users and their permissions: each service connects
    as its own, and a subject one uses without being allowed fails the run."""
    root = throwaway_dir("redline-test-split-")
    name = "redline_split_" + uuid.uuid4().hex[:12]
    run_sql(postgres_server_url, f'CREATE DATABASE "{name}"')
    users = nats_users(pytestconfig.rootpath / USERS_FILE, root)
    nats = LocalNats(root / "nats", config_file=users.config_file, environ=users.server_environ)
    nats.start()
    try:
        # The hosted product's header brand beside Redline's own, as a customer switching over
        # runs it: its official SDK sends x-velt-* headers.
        settings = {
            "REDLINE_SECRET_KEY": random_secret_key(),
            "REDLINE_HEADER_BRANDS": "redline,velt",
        }
        yield from run_split_system(
            root / "data", with_database(postgres_server_url, name), nats.url, settings, users
        )
    finally:
        nats.stop()
        run_sql(postgres_server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(root, ignore_errors=True)


def run_sql(url: str, statement: str) -> None:
    """Run one statement on the server at `url` (a database made or dropped for a session)."""

    async def run() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(statement)
        finally:
            await conn.close()

    run_on_own_loop(run())


def run_on_own_loop(work: Coroutine[Any, Any, None]) -> None:
    """Run `work` to its end on an event loop of its own: session fixtures may be set up from
    within a test's running loop, so on a thread's."""
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, work).result()
