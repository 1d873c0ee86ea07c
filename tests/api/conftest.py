"""Black-box HTTP tests: against the all-in-one app in this process (default), the split topology
started for the session (`--target split`), or a running system (`--target URL`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import asyncpg
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pytest_aiohttp import AiohttpClient

from redline.bus import Bus
from redline.cli.system import create_system_app, plugins
from redline.local.servers import LocalNats
from redline.runtime.app import migrate_only
from redline.runtime.settings import RuntimeSettings, load_settings
from redline.testing.api import ApiClient, StartApi
from redline.testing.plugin import ExternalNats, fresh_database, migrated_template
from redline.testing.split import SplitSystem


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Against another target, a test that never calls it (it starts its own app with
    `start_api`) would only repeat, step for step, what the in-process run did: leave it out."""
    if config.getoption("--target") == "inproc":
        return
    calls = ["target_url" in getattr(item, "fixturenames", ()) for item in items]
    kept = [item for item, called in zip(items, calls, strict=True) if called]
    left_out = [item for item, called in zip(items, calls, strict=True) if not called]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.fixture
def start_api(runtime_overrides: dict[str, Any], aiohttp_client: AiohttpClient) -> StartApi:
    """Start the all-in-one app with some settings changed: `await start_api(open_signup=False)`."""

    async def start(**changes: Any) -> ApiClient:
        app, _ = create_system_app({}, **{**runtime_overrides, **changes})
        client = await aiohttp_client(app)
        return ApiClient(client.session, str(client.make_url("")))

    return start


@pytest.fixture
def target_url(request: pytest.FixtureRequest) -> str | None:
    """The base URL `api` calls; None for the all-in-one app in this process."""
    target: str = request.config.getoption("--target")
    if target == "inproc":
        return None
    if target == "split":
        split_url: str = request.getfixturevalue("split_system").base_url
        return split_url
    return target


@pytest.fixture
async def api(target_url: str | None, start_api: StartApi) -> AsyncIterator[ApiClient]:
    if target_url is None:
        yield await start_api()
        return
    async with aiohttp.ClientSession() as session:
        yield ApiClient(session, target_url)


def _split_system_called(request: pytest.FixtureRequest) -> SplitSystem | None:
    """The split topology when this test calls it (through an `api` built on `target_url`)."""
    if request.config.getoption("--target") == "split" and "target_url" in request.fixturenames:
        system: SplitSystem = request.getfixturevalue("split_system")
        return system
    return None


async def _apply_system_migrations(url: str) -> None:
    await migrate_only(load_settings(RuntimeSettings, {}, database_url=url), plugins({}, {}))


@pytest.fixture(scope="session")
def database_template(postgres_server_url: str) -> Iterator[str]:
    """Every test here starts the whole system: its database is a copy of one already migrated."""
    with migrated_template(postgres_server_url, _apply_system_migrations) as name:
        yield name


@pytest.fixture
async def database_url(
    request: pytest.FixtureRequest, postgres_server_url: str, database_template: str
) -> AsyncIterator[str]:
    """The database of the system `api` calls: under `--target split`, the split topology's,
    for the tests that call it; else the test's own fresh database."""
    system = _split_system_called(request)
    if system is not None:
        yield system.database_url
        return
    async with fresh_database(postgres_server_url, database_template) as url:
        yield url


@pytest.fixture
def nats_url(request: pytest.FixtureRequest) -> str:
    """The NATS server of the system `api` calls (see `database_url`)."""
    system = _split_system_called(request)
    if system is not None:
        return system.nats_url
    server: LocalNats | ExternalNats = request.getfixturevalue("nats_server")
    return server.url


@pytest.fixture(scope="session")
def public_key_pem() -> str:
    """An RSA public key (PEM) for webhook encryption settings."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    """Direct SQL on the system's database, for shapes no endpoint makes and for looking at
    what was stored."""
    conn = await asyncpg.connect(database_url)
    try:
        yield conn
    finally:
        await conn.close()


@pytest.fixture
async def bus(nats_url: str) -> AsyncIterator[Bus]:
    """A NATS connection of the test's own, for the RPCs it calls as another service would."""
    connected = await Bus.connect(nats_url, name="test-access")
    try:
        yield connected
    finally:
        await connected.close()
