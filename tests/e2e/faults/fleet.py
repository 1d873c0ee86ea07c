"""The split topology as the fault tests need it: each service a process of its own on a port it
keeps across restarts (as a replacement pod keeps its Service's address), on a database and a
NATS server of the fleet's own, so that killing a process touches no other test."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from redline.cli.split import service_environment
from redline.local.processes import answers_ready, free_port, start_server_process
from redline.local.servers import LocalNats
from redline.runtime.routing import SERVICES
from redline.testing.plugin import random_secret_key, run_sql, with_database

HOST = "127.0.0.1"
READY_TIMEOUT_S = 120.0
# Every request of a fault test comes from this one address: the limits would throttle it.
_UNLIMITED = {
    f"REDLINE_RATE_LIMIT_{limit}": str(10**9)
    for limit in ("GENERAL", "SEARCH", "INGEST", "SIGNUP", "AUTH_FAILURES")
}


@dataclass
class Fleet:
    """The five service processes. `wrappers` put a command in front of a service's own (to
    start it in a namespace of its own, say)."""

    root: Path
    environ: dict[str, str]
    wrappers: Mapping[str, list[str]] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def upstreams(self) -> dict[str, str]:
        return {name: f"http://{HOST}:{port}" for name, port in self.ports.items()}

    def start(self, service: str) -> None:
        port = self.ports.setdefault(service, free_port(HOST))
        command = [*self.wrappers.get(service, []), sys.executable, "-m", f"redline.{service}"]
        self.processes[service] = start_server_process(
            command,
            log_path=self.root / f"{service}.log",
            death_signal=signal.SIGKILL,
            env=service_environment(self.environ, {}, HOST, port, service),
        )

    def kill(self, service: str) -> None:
        process = self.processes[service]
        process.send_signal(signal.SIGKILL)
        process.wait()

    async def ready(self, service: str) -> None:
        async with asyncio.timeout(READY_TIMEOUT_S):
            while not await asyncio.to_thread(answers_ready, self.upstreams[service]):
                if self.processes[service].poll() is not None:
                    log = (self.root / f"{service}.log").read_text(errors="replace")
                    raise AssertionError(f"{service} exited:\n{log[-4000:]}")
                await asyncio.sleep(0.2)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
            process.wait()


@contextmanager
def running_fleet(
    postgres_server_url: str,
    settings: Mapping[str, str] | None = None,
    wrappers: Mapping[str, list[str]] | None = None,
) -> Iterator[Fleet]:
    """Every service started (not yet ready: `Fleet.ready` waits), and everything it made
    removed afterwards. `settings` are more `REDLINE_*` variables."""
    root = Path(tempfile.mkdtemp(prefix="redline-test-fleet-"))
    name = "redline_fleet_" + uuid.uuid4().hex[:12]
    run_sql(postgres_server_url, f'CREATE DATABASE "{name}"')
    nats = LocalNats(root / "nats")
    nats.start()
    environ = {
        **os.environ,
        **_UNLIMITED,
        "REDLINE_DATABASE_URL": with_database(postgres_server_url, name),
        "REDLINE_NATS_URL": nats.url,
        "REDLINE_DATA_DIR": str(root / "data"),
        "REDLINE_SECRET_KEY": random_secret_key(),
        "REDLINE_OPEN_SIGNUP": "true",
        **(settings or {}),
    }
    fleet = Fleet(root, environ, wrappers or {})
    try:
        for service in SERVICES:
            fleet.start(service)
        yield fleet
    finally:
        fleet.stop()
        nats.stop()
        run_sql(postgres_server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(root, ignore_errors=True)
