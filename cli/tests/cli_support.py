"""Running the `redline` command in a test, with only the test's settings."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import msgspec


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
