"""Starting the processes a benchmark measures: the full system and bare baselines."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError("server did not start in time")


@contextlib.contextmanager
def process(
    args: list[str], port: int, env: dict[str, str] | None = None, cpus: set[int] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `args` until the block ends, its output in a log file rather than a pipe: a pipe
    nobody reads fills at 64 KB and then blocks the server in its next log write. `cpus` pins
    it to those cores, as `taskset` does."""

    def pin() -> None:
        if cpus:
            os.sched_setaffinity(0, cpus)

    with tempfile.NamedTemporaryFile(prefix="redline-bench-", suffix=".log") as log:
        proc = subprocess.Popen(
            args,
            env={**os.environ, **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=pin if cpus else None,
        )
        try:
            try:
                wait_for_port(port, proc)
                yield proc
            except BaseException:
                _show_tail(Path(log.name), args)
                raise
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _show_tail(log: Path, args: list[str]) -> None:
    tail = log.read_bytes()[-4000:].decode(errors="replace")
    sys.stderr.write(f"--- last output of {' '.join(args[1:3])} ---\n{tail}\n")


def system(
    port: int, data_dir: Path, extra_env: dict[str, str] | None = None
) -> contextlib.AbstractContextManager[subprocess.Popen[bytes]]:
    """The all-in-one system, exactly as `make run` starts it, with its own data dir."""
    env = {
        "REDLINE_PORT": str(port),
        "REDLINE_DATA_DIR": str(data_dir),
        "REDLINE_LOG_LEVEL": "WARNING",
        # The limiter still runs on every request; a limit this high is never reached.
        "REDLINE_RATE_LIMIT_GENERAL": "100000000",
        **(extra_env or {}),
    }
    return process([sys.executable, "-m", "redline.cli", "up"], port, env)


def bare(port: int, body_file: Path) -> contextlib.AbstractContextManager[subprocess.Popen[bytes]]:
    return process([sys.executable, str(HERE / "bare.py"), str(port), str(body_file)], port)
