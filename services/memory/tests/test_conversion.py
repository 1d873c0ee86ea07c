"""The conversion child: it converts a file with none of the service's secrets in reach."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from redline.memory.background import NICENESS
from redline.memory.knowledge.conversion import (
    ChunkSizes,
    Job,
    child_environment,
    convert_in_child,
    start_child,
)
from redline.memory.knowledge.files import Limits
from services.memory.tests.worker_support import TEXT

SECRETS = {
    "REDLINE_SECRET_KEY": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==",
    "REDLINE_DATABASE_URL": "postgresql://redline:db-password@db:5432/redline",
    "REDLINE_NATS_URL": "nats://memory:nats-password@nats:4222",
    "REDLINE_QDRANT_API_KEY": "qdrant-key",
}


def test_the_child_environment_keeps_what_python_needs_and_no_setting() -> None:
    parent = {
        **SECRETS,
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": "/srv/scratch",
        "AWS_SECRET_ACCESS_KEY": "aws-secret",
        "DATABASE_URL": "postgresql://other:pw@db/other",
    }

    environment = child_environment(parent)

    assert environment == {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": "/srv/scratch",
    }


async def test_the_running_child_holds_none_of_the_services_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)

    child = await start_child(memory_mb=512)
    try:
        # What the kernel gave the child at exec, as any process of the same user could read it.
        environ = await asyncio.to_thread(Path(f"/proc/{child.pid}/environ").read_bytes)
    finally:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        await child.communicate()

    names = {entry.split(b"=", 1)[0] for entry in environ.split(b"\0") if entry}
    assert b"PATH" in names
    assert not [name for name in names if name.startswith(b"REDLINE_")]
    for value in SECRETS.values():
        assert value.encode() not in environ


def niceness(stat_path: str) -> int:
    """A process's or thread's niceness, as `ps -o ni` shows it (field 19 of its stat)."""
    fields = Path(stat_path).read_text().rsplit(")", 1)[1].split()
    return int(fields[16])


async def test_the_child_runs_at_background_priority() -> None:
    child = await start_child(memory_mb=512)
    try:
        child_niceness = await asyncio.to_thread(niceness, f"/proc/{child.pid}/stat")
    finally:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        await child.communicate()

    assert child_niceness == niceness("/proc/self/stat") + NICENESS


async def test_the_child_still_converts_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    job = Job(mime_type="text/plain", sizes=ChunkSizes(), limits=Limits(), data=TEXT)

    converted = await convert_in_child(job, timeout_s=60, memory_mb=1024)

    assert converted.chunks
    assert "safety module 59" in converted.markdown
