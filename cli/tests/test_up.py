"""`redline up`: the whole system in one process."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest

from cli.tests.cli_support import (
    cli_env,
    is_alive,
    kill_all,
    local_env,
    run_cli,
    servers_of,
    start_up,
    wait_for_no_servers,
    wait_until_up,
)
from redline.cli.lock import DataDirLock
from redline.testing.api import ApiClient
from redline.testing.plugin import random_secret_key


async def test_up_says_it_is_up_only_once_it_answers(
    database_url: str, nats_url: str, tmp_path: Path, unused_tcp_port_factory: Callable[[], int]
) -> None:
    port = unused_tcp_port_factory()
    env = cli_env(database_url, random_secret_key(), tmp_path / "data")
    env.update(REDLINE_NATS_URL=nats_url, REDLINE_PORT=str(port), REDLINE_LOG_LEVEL="WARNING")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "redline.cli",
        "up",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        async with asyncio.timeout(60):
            line = await process.stdout.readline()
        assert line.decode().startswith(f"Redline is up at http://127.0.0.1:{port}")

        # Whoever reads the banner may call straight away.
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{port}/readyz") as response,
        ):
            assert response.status == 200
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGINT)
        async with asyncio.timeout(30):
            await process.wait()
    assert process.returncode == 0


@pytest.fixture
async def runners(data_dir: Path) -> AsyncIterator[list[asyncio.subprocess.Process]]:
    """Runners a test starts on `data_dir`; whatever is left of them is killed after."""
    started: list[asyncio.subprocess.Process] = []
    yield started
    await kill_all(started, data_dir)


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    async with asyncio.timeout(30):
        await process.wait()


@pytest.mark.timeout(600)
async def test_a_hard_kill_takes_the_servers_along_and_the_data_survives(
    tmp_path: Path,
    data_dir: Path,
    unused_tcp_port_factory: Callable[[], int],
    runners: list[asyncio.subprocess.Process],
) -> None:
    port = unused_tcp_port_factory()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "up.log"
    first = await start_up(local_env(data_dir, port), log)
    runners.append(first)
    await wait_until_up(first, log)
    async with aiohttp.ClientSession() as session:
        workspace = await ApiClient(session, base).create_workspace()
    assert len(servers_of(data_dir)) == 2

    await _kill_group(first)
    # Nothing signalled the servers but the kernel, on their parent's death.
    await wait_for_no_servers(data_dir, timeout_s=10)

    second = await start_up(local_env(data_dir, port), log)
    runners.append(second)
    await wait_until_up(second, log)
    async with aiohttp.ClientSession() as session:
        got = await ApiClient(session, base).post(
            "/v2/workspace/get", {}, headers=workspace.workspace_headers
        )
    assert got.status == 200, got.body
    assert got.data["id"] == workspace.id
    assert sorted(p.name() for p in servers_of(data_dir)) == ["nats-server", "postgres"]

    # SIGTERM goes the way Ctrl-C does: servers stopped, the data dir given up.
    second.send_signal(signal.SIGTERM)
    async with asyncio.timeout(120):
        assert await second.wait() == 0
    assert servers_of(data_dir) == []
    DataDirLock.acquire(data_dir).release()
    assert "left running" not in await asyncio.to_thread(log.read_text)


@pytest.mark.timeout(600)
async def test_a_second_runner_on_the_same_data_dir_refuses_and_harms_nothing(
    tmp_path: Path,
    data_dir: Path,
    unused_tcp_port_factory: Callable[[], int],
    runners: list[asyncio.subprocess.Process],
) -> None:
    port = unused_tcp_port_factory()
    log = tmp_path / "up.log"
    first = await start_up(local_env(data_dir, port), log)
    runners.append(first)
    await wait_until_up(first, log)
    servers = {p.pid for p in servers_of(data_dir)}

    refused = await run_cli("up", env=local_env(data_dir, unused_tcp_port_factory()))

    assert refused.returncode == 1
    assert f"{data_dir} is in use by another redline process (pid {first.pid})" in refused.stderr
    assert {p.pid for p in servers_of(data_dir)} == servers
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/readyz") as response,
    ):
        assert response.status == 200
    first.send_signal(signal.SIGINT)
    async with asyncio.timeout(120):
        assert await first.wait() == 0


@pytest.mark.timeout(600)
async def test_the_next_start_stops_servers_a_killed_runner_left_behind(
    tmp_path: Path,
    data_dir: Path,
    unused_tcp_port_factory: Callable[[], int],
    runners: list[asyncio.subprocess.Process],
) -> None:
    port = unused_tcp_port_factory()
    log = tmp_path / "up.log"
    env = local_env(data_dir, port)
    first = await start_up({**env, "REDLINE_LOCAL_SERVERS_PDEATHSIG": "0"}, log)
    runners.append(first)
    await wait_until_up(first, log)
    await _kill_group(first)
    await asyncio.sleep(1)
    orphans = servers_of(data_dir)
    names = {orphan.pid: orphan.name() for orphan in orphans}
    assert sorted(names.values()) == ["nats-server", "postgres"]

    second = await start_up(env, log)
    runners.append(second)
    await wait_until_up(second, log)

    assert not any(is_alive(orphan) for orphan in orphans)
    text = await asyncio.to_thread(log.read_text)
    for pid, name in names.items():
        said = "PostgreSQL server" if name == "postgres" else "nats-server"
        assert f"stopping a {said} (pid {pid}" in text, text
    assert sorted(p.name() for p in servers_of(data_dir)) == ["nats-server", "postgres"]
    second.send_signal(signal.SIGINT)
    async with asyncio.timeout(120):
        assert await second.wait() == 0
