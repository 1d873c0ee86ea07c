"""A service run alone, as its deployment runs it: `python -m redline.<service>` with its
migrations applied by `... migrate` first, stopped by SIGTERM as Kubernetes stops a pod."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import asyncpg
import pytest

from redline.local.processes import free_port
from redline.testing.plugin import random_secret_key

# What a pod gets between SIGTERM and SIGKILL by default.
GRACE_PERIOD_S = 30.0


@pytest.fixture
def service_env(database_url: str, nats_url: str, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "REDLINE_DATABASE_URL": database_url,
        "REDLINE_NATS_URL": nats_url,
        "REDLINE_DATA_DIR": str(tmp_path / "data"),
        "REDLINE_SECRET_KEY": random_secret_key(),
        "REDLINE_OPEN_SIGNUP": "true",
        "REDLINE_RATE_LIMIT_SIGNUP": str(10**9),
        "REDLINE_RATE_LIMIT_GENERAL": str(10**9),
        "REDLINE_PORT": str(free_port()),
    }


@pytest.fixture
def identity(service_env: dict[str, str], tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    log = (tmp_path / "identity.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "redline.identity"], env=service_env, stdout=log, stderr=log
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        log.close()


async def wait_until_ready(base_url: str, process: subprocess.Popen[bytes]) -> None:
    async with aiohttp.ClientSession() as session:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "the service exited while starting"
            assert time.monotonic() < deadline, "the service did not become ready"
            try:
                async with session.get(base_url + "/readyz") as answer:
                    if answer.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.1)


async def test_migrate_applies_the_service_s_migrations_and_exits(
    service_env: dict[str, str], database_url: str
) -> None:
    for _ in range(2):  # the second run finds nothing left to apply
        migrate = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "redline.notify",
            "migrate",
            env=service_env,
            stderr=asyncio.subprocess.PIPE,
        )
        _, errors = await asyncio.wait_for(migrate.communicate(), timeout=60)
        assert migrate.returncode == 0, errors.decode()
    conn = await asyncpg.connect(database_url)
    try:
        schemas = {r["nspname"] for r in await conn.fetch("SELECT nspname FROM pg_namespace")}
    finally:
        await conn.close()
    assert "notify" in schemas
    assert "identity" not in schemas  # each service migrates only its own schema


def test_an_unknown_argument_is_refused_with_the_usage(service_env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "redline.workflow", "serve-please"],
        env=service_env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert b"usage: python -m redline.workflow [migrate]" in done.stderr


async def test_sigterm_during_a_burst_fails_no_accepted_request_and_exits_in_time(
    identity: subprocess.Popen[bytes], service_env: dict[str, str], database_url: str
) -> None:
    base_url = f"http://127.0.0.1:{service_env['REDLINE_PORT']}"
    await wait_until_ready(base_url, identity)
    answers: dict[str, int] = {}
    refused = 0
    under_way = asyncio.Event()

    async def create(session: aiohttp.ClientSession, n: int) -> None:
        nonlocal refused
        email = f"burst-{n}@example.com"
        try:
            async with session.post(
                base_url + "/v2/workspace/create", json={"data": {"ownerEmail": email}}
            ) as answer:
                answers[email] = answer.status
                if len(answers) >= 30:
                    under_way.set()
        except aiohttp.ClientConnectionError:
            refused += 1  # sent after the server stopped taking connections: never accepted

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=20)) as session:
        burst = [asyncio.create_task(create(session, n)) for n in range(300)]
        await under_way.wait()
        identity.send_signal(signal.SIGTERM)
        stopped_at = time.monotonic()
        await asyncio.gather(*burst)

    exit_code = await asyncio.to_thread(identity.wait, GRACE_PERIOD_S)
    assert exit_code == 0
    assert time.monotonic() - stopped_at < GRACE_PERIOD_S
    assert set(answers.values()) == {200}, answers
    assert len(answers) + refused == 300
    conn = await asyncpg.connect(database_url)
    try:
        owners = {
            r["owner_email"] for r in await conn.fetch("SELECT owner_email FROM identity.workspace")
        }
    finally:
        await conn.close()
    # Every workspace whose creation was answered exists.
    assert set(answers) <= owners
