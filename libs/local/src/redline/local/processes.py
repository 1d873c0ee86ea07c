"""Server processes that die with the process that started them, and finding and stopping ones
left running by a process that was killed before it could stop them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path

import psutil  # type: ignore[import-untyped]  # ships no type information

_PR_SET_PDEATHSIG = 1


def start_server_process(
    command: list[str],
    *,
    log_path: Path,
    death_signal: signal.Signals | None,
    user: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start `command` in a session of its own, its output appended to `log_path`.

    Its own session keeps a terminal's Ctrl-C from reaching it: the starter stops it, after
    whatever still needs it. `death_signal` is what it receives if the starter dies first
    (Linux only; elsewhere the next start looks for it, see `running_process`). The thread calling
    this must live as long as the starter: Linux sends the signal when that thread ends.
    """
    die_with_parent = _die_with_parent(death_signal) if death_signal is not None else None
    with log_path.open("ab") as log:
        return subprocess.Popen(  # noqa: S603 (callers pass a fixed binary and arguments)
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            # Not thread-safe in general; this one calls one libc function and reads a pid.
            preexec_fn=die_with_parent,
            user=user,
            env=env,
        )


def _die_with_parent(death_signal: signal.Signals) -> Callable[[], None] | None:
    """What the forked child runs before exec to ask for `death_signal` when its parent dies.

    The signal goes to the server itself, so a server that daemonizes (forks again, as
    `pg_ctl start` does with the postmaster) would lose it: it is cleared across fork. Callers
    start the server binary directly. Subprocess switches to the server's user before this
    runs, and a change of user would also clear it.
    """
    if not sys.platform.startswith("linux"):
        return None
    # Looked up before the fork, so the child only calls into an already loaded library.
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def request_signal() -> None:
        prctl(_PR_SET_PDEATHSIG, int(death_signal))
        # A parent that died between fork and prctl would never send it: give up instead.
        if os.getppid() != parent:
            os._exit(1)

    return request_signal


def running_process(pid: int, *, name: str, argument: str) -> psutil.Process | None:
    """The process `pid` if it runs program `name` with `argument` among its arguments.

    Callers pass the directory a server works on, so a pid the system has since given to another
    program, or to a server of another directory, gives None. Start times are not compared: a
    process that passes is that directory's server whenever it started, and a wall-clock change
    between two runs would make an honest comparison miss one.
    """
    try:
        process = psutil.Process(pid)
        if process.name() == name and argument in process.cmdline():
            return process
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        pass
    return None


def processes_running(name: str, argument: str) -> list[psutil.Process]:
    """Every process of program `name` with `argument` among its arguments."""
    found = []
    for process in psutil.process_iter(["name"]):
        if process.info["name"] == name:
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                if argument in process.cmdline():
                    found.append(process)
    return found


def pid_in_use(pid: int) -> bool:
    in_use: bool = psutil.pid_exists(pid)
    return in_use


def stop_process(process: psutil.Process, stop_signal: signal.Signals, timeout_s: float) -> None:
    """Ask `process` to stop with `stop_signal`; after `timeout_s`, kill it and its children.

    Children go too: a server's workers (PostgreSQL's backends) can outlive a killed parent for a
    moment, holding what a fresh server needs.
    """
    stopped = _stop(process, stop_signal, timeout_s)
    # Until whoever adopted it reaps it, its pid still exists, and a new server reading the
    # lock files a killed one left behind would take it for a live server.
    deadline = time.monotonic() + 5.0
    while any(p.is_running() for p in stopped) and time.monotonic() < deadline:
        time.sleep(0.05)


def stop_server_process(
    process: subprocess.Popen[bytes], stop_signal: signal.Signals, timeout_s: float
) -> None:
    """`stop_process` for a server this process started, and so reaps itself."""
    if process.poll() is None:
        with contextlib.suppress(psutil.NoSuchProcess):
            _stop(psutil.Process(process.pid), stop_signal, timeout_s)
    process.wait()


def _stop(
    process: psutil.Process, stop_signal: signal.Signals, timeout_s: float
) -> list[psutil.Process]:
    """Stop `process` (see `stop_process`); the processes stopped, perhaps not yet reaped."""
    try:
        children = process.children(recursive=True)
        process.send_signal(stop_signal)
    except psutil.NoSuchProcess:
        return []
    if _wait_until_gone([process], timeout_s):
        return [process]
    for target in [process, *children]:
        with contextlib.suppress(psutil.NoSuchProcess):
            target.kill()
    if not _wait_until_gone([process, *children], timeout_s):
        raise RuntimeError(f"could not stop process {process.pid}")
    return [process, *children]


def _wait_until_gone(processes: list[psutil.Process], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while any(_is_alive(process) for process in processes):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _is_alive(process: psutil.Process) -> bool:
    # A dead process its parent has not reaped yet still has a pid, but nothing else.
    try:
        alive: bool = process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    return alive


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on now, for a server this process is about to start."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def answers_ready(base_url: str, timeout_s: float = 2.0) -> bool:
    """Whether the Redline server at `base_url` (http) says it is ready (`/readyz` is 200)."""
    try:
        with urllib.request.urlopen(base_url + "/readyz", timeout=timeout_s) as answer:  # noqa: S310 (http to a server this process started)
            return bool(answer.status == 200)
    except OSError:  # refused, reset, timed out, or an HTTP error status
        return False
