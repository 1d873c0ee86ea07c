import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from redline.local.servers import (
    LocalNats,
    LocalPostgres,
    stop_leftover_nats,
    stop_leftover_postgres,
)


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def test_local_nats_restarts_on_the_same_port(tmp_path: Path) -> None:
    server = LocalNats(tmp_path / "nats")
    server.start()
    try:
        port = server.port
        assert _accepts(port)
        server.stop()
        assert not server.running
        assert not _accepts(port)
        server.start()
        assert server.port == port
        assert _accepts(port)
        assert (tmp_path / "nats" / "jetstream").is_dir()
    finally:
        server.stop()


_START_NATS = """
import sys, time
from pathlib import Path
from redline.local.servers import LocalNats
server = LocalNats(Path(sys.argv[1]), die_with_parent=sys.argv[2] == "1")
server.start()
print(server.pid, server.port, flush=True)
time.sleep(600)
"""


def _nats_from_a_killed_process(data_dir: Path, *, die_with_parent: bool) -> tuple[int, int]:
    """Start a nats-server from a child process, then SIGKILL that child; the server's pid and
    port."""
    flag = "1" if die_with_parent else "0"
    child = subprocess.Popen(
        [sys.executable, "-c", _START_NATS, str(data_dir), flag], stdout=subprocess.PIPE
    )
    assert child.stdout is not None
    with child.stdout:
        pid, port = map(int, child.stdout.readline().split())
    child.kill()
    child.wait()
    return pid, port


def _alive(pid: int) -> bool:
    try:
        process = psutil.Process(pid)
        return bool(process.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def _gone_within(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def bystander() -> Iterator[subprocess.Popen[bytes]]:
    """Some other program, whose pid a stale record might name."""
    process = subprocess.Popen(["sleep", "600"])
    yield process
    process.kill()
    process.wait()


def test_a_nats_server_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    pid, _port = _nats_from_a_killed_process(tmp_path / "nats", die_with_parent=True)
    try:
        assert _gone_within(pid, timeout_s=10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("record", ["kept", "lost"])
def test_a_leftover_nats_server_is_stopped_and_said_so(
    tmp_path: Path, record: str, caplog: pytest.LogCaptureFixture
) -> None:
    data_dir = tmp_path / "nats"
    pid, port = _nats_from_a_killed_process(data_dir, die_with_parent=False)
    try:
        assert _alive(pid)
        if record == "lost":
            (data_dir / "nats-server.json").unlink()
        stop_leftover_nats(data_dir)
        assert _gone_within(pid, timeout_s=1)
        assert not _accepts(port)
        assert f"stopping a nats-server (pid {pid}" in caplog.text
        if record == "kept":
            assert f"port {port})" in caplog.text
        assert not (data_dir / "nats-server.json").exists()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_a_recorded_nats_pid_now_used_by_another_program_is_left_alone(
    tmp_path: Path, bystander: subprocess.Popen[bytes]
) -> None:
    data_dir = tmp_path / "nats"
    data_dir.mkdir()
    (data_dir / "nats-server.json").write_text(f'{{"pid": {bystander.pid}, "port": 4222}}')

    stop_leftover_nats(data_dir)

    assert bystander.poll() is None
    assert not (data_dir / "nats-server.json").exists()


@pytest.fixture
def pgdata() -> Iterator[Path]:
    """Outside pytest's `tmp_path`, which pytest makes private to the user running the tests
    whenever a session starts: under root, PostgreSQL runs as a user of its own."""
    parent = Path(tempfile.mkdtemp(prefix="redline-test-servers-"))
    yield parent / "pg"
    shutil.rmtree(parent, ignore_errors=True)


def test_a_postmaster_pid_now_used_by_another_program_is_left_alone(
    pgdata: Path, bystander: subprocess.Popen[bytes]
) -> None:
    server = LocalPostgres(pgdata)
    server.stop()
    # What a crash leaves, once the system has given the postmaster's pid to another program.
    lines = [
        str(bystander.pid),
        str(pgdata.resolve()),
        "0",
        "5432",
        str(pgdata),
        "",
        "0 0",
        "ready",
    ]
    (pgdata / "postmaster.pid").write_text("\n".join(lines) + "\n")

    stop_leftover_postgres(pgdata)
    assert bystander.poll() is None

    # The stale file would stop PostgreSQL starting; it goes, the bystander stays.
    server = LocalPostgres(pgdata)
    try:
        assert server.pid != bystander.pid
        assert bystander.poll() is None
    finally:
        server.stop()
