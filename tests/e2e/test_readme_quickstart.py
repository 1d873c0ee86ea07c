"""The README's quickstart and the Quickstart page's tour of the API, run as a reader would against
`redline up`: the shell part pasted into bash, the SDK part saved and run by Python in that shell.
Every call answers a success envelope holding what its `expect:` comment quotes, so neither can go
stale unnoticed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from redline.testing.plugin import random_secret_key

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
QUICKSTART_PAGE = ROOT / "docs" / "quickstart.md"
# The address the text's commands reach, written once in each script.
TEXT_ADDRESS = "http://127.0.0.1:8080"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def section(path: Path, heading: str) -> str:
    """The text under a `## ` heading, up to the next one."""
    after = path.read_text().split(f"\n## {heading}\n", 1)[1]
    return after.split("\n## ", 1)[0]


def code_blocks(text: str) -> list[tuple[str, str]]:
    """Each fenced block's language and content, in order."""
    return [(language, body) for language, body in FENCE.findall(text)]


def sdk_quickstart(text: str) -> tuple[dict[str, str], str, str]:
    """The quickstart's three blocks: the settings `make run` starts with, the shell part and the
    Python part."""
    blocks = code_blocks(text)
    assert [language for language, _ in blocks] == ["bash", "bash", "python"]
    (_, start), (_, shell), (_, python) = blocks
    *assignments, make, run = shlex.split(start)
    assert (make, run) == ("make", "run"), start
    return dict(a.split("=", 1) for a in assignments), shell, python


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
    """`redline up` on this test's servers, a data dir of its own and a free port, with the
    settings the README starts `make run` with."""
    settings, _, _ = sdk_quickstart(section(README, "Quickstart"))
    port = unused_tcp_port_factory()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REDLINE_")}
    env.update(
        settings,
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


async def run_as_a_reader(script: str, base_url: str, tmp_path: Path) -> list[str]:
    """Run `script` in bash from an empty directory against `base_url`; the lines it printed.
    Nothing may be written where the reader pasted it."""
    assert script.count(TEXT_ADDRESS) == 1, script
    work_tree = tmp_path / "work-tree"
    work_tree.mkdir()
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VELT_", "REDLINE_"))}
    shell = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        script.replace(TEXT_ADDRESS, base_url),
        cwd=work_tree,
        env={**env, "TMPDIR": str(private_tmp)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(60):
        stdout, stderr = await shell.communicate()

    assert (shell.returncode, stderr.decode()) == (0, ""), stdout.decode()
    assert list(work_tree.iterdir()) == []
    return stdout.decode().splitlines()


def assert_printed(printed: list[str], expected: list[list[str]]) -> None:
    """Each printed line is a success envelope holding the strings its comment quotes."""
    assert len(printed) == len(expected), "\n".join(printed)
    for line, quoted in zip(printed, expected, strict=True):
        body = json.loads(line)
        assert set(body) == {"result"}, line
        result = body["result"]
        if isinstance(result, dict) and "data" in result:
            assert result["status"] == "success", line
        assert set(quoted) <= strings_in(result), (quoted, line)


def test_the_quickstart_page_repeats_the_readme() -> None:
    readme = code_blocks(section(README, "Quickstart"))
    page = code_blocks(section(QUICKSTART_PAGE, "Five minutes with the Python SDK"))

    assert page == readme


async def test_the_readme_quickstart_prints_what_it_says(base_url: str, tmp_path: Path) -> None:
    _, shell, python = sdk_quickstart(section(README, "Quickstart"))
    assert TEXT_ADDRESS not in python  # the Python part reads the address the shell exported
    program = tmp_path / "quickstart.py"
    program.write_text(python)
    script = f"{shell}\n{shlex.quote(sys.executable)} {shlex.quote(str(program))}\n"

    printed = await run_as_a_reader(script, base_url, tmp_path)

    assert_printed(printed, quoted_expectations(shell) + quoted_expectations(python))


async def test_the_tour_of_the_api_prints_what_the_page_says(base_url: str, tmp_path: Path) -> None:
    blocks = code_blocks(section(QUICKSTART_PAGE, "A tour of the API with curl"))
    assert [language for language, _ in blocks] == ["bash"]
    script = blocks[0][1]

    printed = await run_as_a_reader(script, base_url, tmp_path)

    assert_printed(printed, quoted_expectations(script))
