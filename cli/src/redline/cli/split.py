"""`redline up --split`: every service in a process of its own, behind a gateway on one port.

This is the production topology on one machine: each service is started as its deployment
starts it (`python -m redline.<service>`, its own port, the shared PostgreSQL and NATS), and
the gateway routes path prefixes to them as the Kubernetes Gateway does. Services reach each
other only over NATS, so the RPC auth backend and the grants it carries run here as in a cluster.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from redline.cli.gateway import SERVER_OPTIONS as GATEWAY_SERVER_OPTIONS
from redline.cli.gateway import create_gateway
from redline.cli.local import DIE_WITH_RUNNER, LocalInfrastructure
from redline.local.processes import (
    answers_ready,
    free_port,
    start_server_process,
    stop_server_process,
)
from redline.runtime.routing import SERVICES
from redline.runtime.serve import serve
from redline.runtime.settings import (
    PREFIX,
    RuntimeSettings,
    load_settings,
    own_nats_url_variable,
)

# What a service gets to finish in-flight requests and drain its consumers, as a pod's grace
# period gives it, before it is killed.
STOP_GRACE_S = 30.0
START_TIMEOUT_S = 120.0


def _as_env(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


def service_environment(
    environ: Mapping[str, str],
    overrides: Mapping[str, Any],
    host: str,
    port: int,
    service: str,
) -> dict[str, str]:
    """A service's environment: the runner's, the local servers' settings, its own address and
    NATS user, and the gateway on this machine trusted to say who the client is."""
    own_urls = {own_nats_url_variable(name) for name in SERVICES}
    env = {name: value for name, value in environ.items() if name not in own_urls}
    env.update({PREFIX + name.upper(): _as_env(value) for name, value in overrides.items()})
    own_url = environ.get(own_nats_url_variable(service))
    if own_url:
        env[PREFIX + "NATS_URL"] = own_url
    env[PREFIX + "HOST"], env[PREFIX + "PORT"] = host, str(port)
    proxies = [p for p in env.get(PREFIX + "TRUSTED_PROXIES", "").split(",") if p.strip()]
    env[PREFIX + "TRUSTED_PROXIES"] = ",".join([*proxies, f"{host}/32"])
    return env


class ServiceProcesses:
    """The five service processes, started together and stopped together."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.upstreams: dict[str, str] = {}
        self._processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, environ: Mapping[str, str], overrides: Mapping[str, Any], host: str) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        die_with_runner = environ.get(DIE_WITH_RUNNER, "1").strip() != "0"
        for service in SERVICES:
            port = free_port(host)
            self._processes[service] = start_server_process(
                [sys.executable, "-m", f"redline.{service}"],
                log_path=self.log_dir / f"{service}.log",
                death_signal=signal.SIGTERM if die_with_runner else None,
                env=service_environment(environ, overrides, host, port, service),
            )
            self.upstreams[service] = f"http://{host}:{port}"

    def wait_until_ready(self, timeout_s: float = START_TIMEOUT_S) -> None:
        """Until every service answers `/readyz` (migrations run, consumers up); raises if one
        exits first or the time runs out, naming its log."""
        deadline = time.monotonic() + timeout_s
        waiting = dict(self.upstreams)
        while waiting:
            for service, upstream in list(waiting.items()):
                if self._processes[service].poll() is not None:
                    raise RuntimeError(f"{service} exited; see {self.log_dir / service}.log")
                if answers_ready(upstream):
                    del waiting[service]
            if waiting and time.monotonic() > deadline:
                names = ", ".join(sorted(waiting))
                raise RuntimeError(f"not ready after {timeout_s:.0f} s: {names}")
            time.sleep(0.2)

    def stop(self) -> None:
        """SIGTERM to each, as Kubernetes sends it, so they stop side by side; one still running
        after the grace period is killed."""
        for process in self._processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for process in self._processes.values():
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                stop_server_process(process, signal.SIGKILL, 5.0)


def run_split(data_dir: Path, environ: dict[str, str]) -> None:
    infra = LocalInfrastructure.start(data_dir, environ)
    services = ServiceProcesses(data_dir / "logs")
    try:
        settings = load_settings(RuntimeSettings, environ, **infra.overrides)
        services.start(environ, infra.overrides, settings.host)
        services.wait_until_ready()
        base = f"http://{settings.host}:{settings.port}"
        lines = [f"Redline (split) is up at {base}  (service logs in {services.log_dir})"]
        lines += [f"  {name:<9} {url}" for name, url in services.upstreams.items()]
        serve(
            create_gateway(services.upstreams),
            settings,
            ready_message="\n".join(lines),
            **GATEWAY_SERVER_OPTIONS,
        )
    finally:
        services.stop()
        infra.stop()
