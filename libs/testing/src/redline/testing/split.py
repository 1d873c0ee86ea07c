"""The production topology for a test run: `redline up --split` started once per session.

Each service runs in a process of its own behind the gateway, on the session's PostgreSQL (a
database of its own) and a NATS server of its own. Tests reach it by URL only; the fixtures that
look at storage or call RPCs get its database and NATS URLs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import trustme

from redline.local.processes import (
    answers_ready,
    free_port,
    start_server_process,
    stop_server_process,
)
from redline.runtime.routing import SERVICES
from redline.runtime.settings import own_nats_url_variable
from redline.testing.nats_users import HARNESS_USER, USERS_FILE, NatsUsers, violations

START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 45.0
# Every test calls from this one address: the system's limits would throttle the suite. The
# tests of the limits themselves start an app of their own with the limits they test.
_LIMITS_OUT_OF_REACH = {
    f"REDLINE_RATE_LIMIT_{name}": str(10**9)
    for name in ("GENERAL", "SEARCH", "INGEST", "SIGNUP", "AUTH_FAILURES")
}


@dataclass(frozen=True)
class SplitSystem:
    base_url: str
    database_url: str
    nats_url: str
    log_dir: Path
    # Webhook receivers made with this authority are trusted and let past the address guard.
    receiver_ca: trustme.CA


def run_split_system(
    data_dir: Path,
    database_url: str,
    nats_url: str,
    settings: Mapping[str, str],
    nats_users: NatsUsers | None = None,
) -> Iterator[SplitSystem]:
    """Start the split system, yield it once the gateway says every service is ready, and stop
    it with SIGTERM afterwards. `settings` are more `REDLINE_*` variables. With `nats_users`
    (the users the server at `nats_url` knows) each service connects as its own user, and the
    system's `nats_url` is the harness's; refusals logged by a service fail the stop."""
    data_dir.mkdir(parents=True, exist_ok=True)
    own_nats_urls: dict[str, str] = {}
    if nats_users is not None:
        own_nats_urls = {
            own_nats_url_variable(service): nats_users.url(nats_url, service)
            for service in SERVICES
        }
        nats_url = nats_users.url(nats_url, HARNESS_USER)
    port = free_port()
    receiver_ca = trustme.CA()
    ca_file = data_dir / "receiver-ca.pem"
    receiver_ca.cert_pem.write_to_path(str(ca_file))
    env = {
        **os.environ,
        **_LIMITS_OUT_OF_REACH,
        # Test receivers listen on loopback, over TLS from `receiver_ca`; failed deliveries are
        # retried milliseconds apart instead of minutes.
        "REDLINE_WEBHOOK_ALLOW": "127.0.0.1",
        "REDLINE_WEBHOOK_CA_FILE": str(ca_file),
        "REDLINE_WEBHOOK_RETRY_SCHEDULE_S": ",".join(["0.05"] * 5),
        "REDLINE_WEBHOOK_RETRY_JITTER": "0",
        "REDLINE_DATA_DIR": str(data_dir),
        "REDLINE_DATABASE_URL": database_url,
        "REDLINE_NATS_URL": nats_url,
        **own_nats_urls,
        "REDLINE_PORT": str(port),
        "REDLINE_OPEN_SIGNUP": "true",
        **settings,
    }
    log_path = data_dir / "runner.log"
    process = start_server_process(
        [sys.executable, "-m", "redline.cli", "up", "--split"],
        log_path=log_path,
        death_signal=signal.SIGTERM,
        env=env,
    )
    base_url = f"http://127.0.0.1:{port}"
    log_dir = data_dir / "logs"
    try:
        _wait_until_ready(process, base_url, log_path)
        yield SplitSystem(base_url, database_url, nats_url, log_dir, receiver_ca)
    finally:
        stop_server_process(process, signal.SIGTERM, STOP_TIMEOUT_S)
    refused = violations(log_dir) if nats_users is not None else []
    if refused:
        raise AssertionError(
            f"NATS refused subjects the services use; allow them in {USERS_FILE}:\n"
            + "\n".join(refused)
        )


def _wait_until_ready(process: subprocess.Popen[bytes], base_url: str, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not answers_ready(base_url):
        if process.poll() is not None or time.monotonic() > deadline:
            tail = log_path.read_text(errors="replace")[-4000:]
            raise RuntimeError(f"the split system did not start:\n{tail}")
        time.sleep(0.2)
