"""Running the `redline` command in a test, with only the test's settings."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import msgspec
import psutil


class Completed(msgspec.Struct):
    returncode: int
    stdout: str
    stderr: str


async def run_cli(*args: str, env: dict[str, str]) -> Completed:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "redline.cli",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return Completed(process.returncode, stdout.decode(), stderr.decode())


def cli_env(database_url: str, secret_key: str, data_dir: Path) -> dict[str, str]:
    # Only this test's settings: nothing inherited from the caller's REDLINE_* variables.
    env = {k: v for k, v in os.environ.items() if not k.startswith("REDLINE_")}
    env.update(
        REDLINE_DATABASE_URL=database_url,
        REDLINE_SECRET_KEY=secret_key,
        REDLINE_DATA_DIR=str(data_dir),
    )
    return env


def local_env(data_dir: Path, port: int) -> dict[str, str]:
    """`redline up` as `make run` starts it: local servers in `data_dir`, nothing inherited."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REDLINE_")}
    env.update(REDLINE_DATA_DIR=str(data_dir), REDLINE_PORT=str(port), REDLINE_LOG_LEVEL="WARNING")
    return env


async def start_up(env: dict[str, str], log: Path) -> asyncio.subprocess.Process:
    """`redline up` in a session of its own, so that a test can kill its whole process group;
    its log goes to `log` (a pipe nobody reads would fill up and stall it)."""
    with log.open("ab") as stderr:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "redline.cli",
            "up",
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,
        )


async def wait_until_up(process: asyncio.subprocess.Process, log: Path) -> None:
    assert process.stdout is not None
    async with asyncio.timeout(180):
        line = await process.stdout.readline()
    if not line.startswith(b"Redline is up"):
        raise AssertionError(await asyncio.to_thread(log.read_text))


def servers_of(data_dir: Path) -> list[psutil.Process]:
    """The nats-servers and postmasters working in `data_dir`. PostgreSQL's backends rename
    themselves, but a backend just forked still carries the postmaster's command line for a
    moment: a process whose parent is one of those found is such a backend, not a server."""
    found = []
    for process in psutil.process_iter(["name", "cmdline", "ppid"]):
        arguments = process.info["cmdline"] or []
        if (
            process.info["name"] in {"nats-server", "postgres"}
            and any(str(data_dir) in argument for argument in arguments)
            and is_alive(process)
        ):
            found.append(process)
    servers = {process.pid for process in found}
    return [process for process in found if process.info["ppid"] not in servers]


async def wait_for_no_servers(data_dir: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while servers := servers_of(data_dir):
        assert time.monotonic() < deadline, f"still running: {servers}"
        await asyncio.sleep(0.1)


def is_alive(process: psutil.Process) -> bool:
    # A killed orphan stays a zombie until whoever adopted it reaps it.
    try:
        return bool(process.is_running() and process.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


async def kill_all(processes: list[asyncio.subprocess.Process], data_dir: Path) -> None:
    """Whatever a failed test left: its runners (and their groups), then their servers."""
    for process in processes:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
    for server in servers_of(data_dir):
        with contextlib.suppress(psutil.NoSuchProcess):
            server.kill()
