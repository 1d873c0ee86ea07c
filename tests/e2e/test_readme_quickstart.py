"""The README's quickstart, pasted into bash as a reader would, against `redline up`: every call
answers a success envelope holding what its `expect:` comment quotes, so the README cannot go
stale unnoticed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from redline.testing.plugin import random_secret_key

README = Path(__file__).resolve().parents[2] / "README.md"
README_BASE = "BASE=http://127.0.0.1:8080\n"


def quickstart_block() -> str:
    section = README.read_text().split("\n## Quickstart\n", 1)[1]
    return section.split("```bash\n", 1)[1].split("\n```\n", 1)[0] + "\n"


def quoted_expectations(script: str) -> list[list[str]]:
    """For each response the script prints, in order, the strings its `expect:` comment quotes
    (the comment runs on over the comment lines that follow it, up to the command)."""
    found: list[list[str]] = []
    current: list[str] | None = None
    for line in script.splitlines():
        text = line.strip()
        if not text.startswith("#"):
            current = None
            continue
        if "expect:" in text:
            current = []
            found.append(current)
        if current is not None:
            current.extend(re.findall(r'"([^"]*)"', text))
    return found


def strings_in(value: Any) -> set[str]:
    """Every key and string value of a JSON value, at any depth."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value).union(*(strings_in(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(strings_in(item) for item in value))
    return set()


@pytest.fixture
async def base_url(
    database_url: str, nats_url: str, tmp_path: Path, unused_tcp_port_factory: Callable[[], int]
) -> AsyncIterator[str]:
    """`redline up` on this test's servers, a data dir of its own and a free port."""
    port = unused_tcp_port_factory()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REDLINE_")}
    env.update(
        REDLINE_DATABASE_URL=database_url,
        REDLINE_NATS_URL=nats_url,
        REDLINE_SECRET_KEY=random_secret_key(),
        REDLINE_DATA_DIR=str(tmp_path / "data"),
        REDLINE_PORT=str(port),
        REDLINE_LOG_LEVEL="WARNING",
    )
    log = tmp_path / "up.log"
    with log.open("wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "redline.cli",
            "up",
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
        )
    try:
        assert process.stdout is not None
        async with asyncio.timeout(60):
            banner = await process.stdout.readline()
        assert banner.startswith(b"Redline is up"), log.read_text()
        yield f"http://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGINT)
        async with asyncio.timeout(30):
            await process.wait()


async def test_the_quickstart_prints_what_the_readme_says(base_url: str, tmp_path: Path) -> None:
    script = quickstart_block()
    assert script.count(README_BASE) == 1
    expected = quoted_expectations(script)
    work_tree = tmp_path / "work-tree"
    work_tree.mkdir()
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()

    shell = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        script.replace(README_BASE, f"BASE={base_url}\n"),
        cwd=work_tree,
        env={**os.environ, "TMPDIR": str(private_tmp)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(60):
        stdout, stderr = await shell.communicate()

    assert (shell.returncode, stderr.decode()) == (0, "")
    printed = stdout.decode().splitlines()
    assert len(printed) == len(expected), stdout.decode()
    for line, quoted in zip(printed, expected, strict=True):
        body = json.loads(line)
        assert set(body) == {"result"}, line
        result = body["result"]
        if isinstance(result, dict) and "data" in result:
            assert result["status"] == "success", line
        assert set(quoted) <= strings_in(result), (quoted, line)
    # Nothing written where the reader pasted it: the credentials went to a private directory.
    assert list(work_tree.iterdir()) == []
