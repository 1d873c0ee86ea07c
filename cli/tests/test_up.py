"""`redline up`: the whole system in one process."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import aiohttp

from cli.tests.cli_support import cli_env
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
