"""What `redline up` provides when no external servers are configured: PostgreSQL and NATS in the
data dir, and a server secret kept there, so data and tokens survive restarts."""

from __future__ import annotations

import base64
import os
import secrets
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redline.runtime.servers import LocalNats, LocalPostgres


def _secret_key(data_dir: Path) -> str:
    path = data_dir / "secret.key"
    if path.exists():
        return path.read_text().strip()
    key = base64.b64encode(secrets.token_bytes(32)).decode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


@dataclass
class LocalInfrastructure:
    data_dir: Path
    nats: LocalNats | None = None
    postgres: LocalPostgres | None = None
    overrides: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(
        cls, data_dir: Path, environ: dict[str, str], *, with_nats: bool = True
    ) -> LocalInfrastructure:
        """Start what `environ` does not point elsewhere; returns the settings to use."""
        data_dir.mkdir(parents=True, exist_ok=True)
        infra = cls(data_dir)
        infra.overrides["data_dir"] = str(data_dir)
        if not environ.get("REDLINE_DATABASE_URL"):
            infra.postgres = LocalPostgres(data_dir / "postgres")
            infra.overrides["database_url"] = infra.postgres.url
        if with_nats and not environ.get("REDLINE_NATS_URL"):
            infra.nats = LocalNats(data_dir / "nats")
            infra.nats.start()
            infra.overrides["nats_url"] = infra.nats.url
        if not environ.get("REDLINE_SECRET_KEY"):
            infra.overrides["secret_key"] = _secret_key(data_dir)
        if not environ.get("REDLINE_OPEN_SIGNUP"):
            # A newcomer's machine: anyone on it may create a workspace.
            infra.overrides["open_signup"] = True
        return infra

    def stop(self) -> None:
        # A second Ctrl-C must not cut the servers' shutdown short.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            if self.nats is not None:
                self.nats.stop()
            if self.postgres is not None:
                self.postgres.stop()
        finally:
            signal.signal(signal.SIGINT, previous)
