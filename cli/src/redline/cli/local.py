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

from redline.local.servers import (
    LocalNats,
    LocalPostgres,
    stop_leftover_nats,
    stop_leftover_postgres,
)


def _secret_key(data_dir: Path) -> str:
    path = data_dir / "secret.key"
    if path.exists():
        return path.read_text().strip()
    key = base64.b64encode(secrets.token_bytes(32)).decode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


# Off ("0") only to leave servers behind on purpose, as a test of their clean-up does: without it,
# a runner that is killed leaves its servers running until the next start stops them.
DIE_WITH_RUNNER = "REDLINE_LOCAL_SERVERS_PDEATHSIG"

_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


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
        """Start what `environ` does not point elsewhere; returns the settings to use.

        The caller holds the data dir's lock, so a server still running on its stores is a
        leftover of a run that was killed: it is stopped before anything starts.
        """
        stop_leftover_postgres(data_dir / "postgres")
        stop_leftover_nats(data_dir / "nats")
        infra = cls(data_dir)
        try:
            infra._start_servers(environ, with_nats=with_nats)
        except BaseException:
            infra.stop()
            raise
        infra._add_local_settings(environ)
        return infra

    @classmethod
    def join(cls, data_dir: Path, environ: dict[str, str]) -> LocalInfrastructure:
        """Use the PostgreSQL server of the process holding the data dir's lock; start nothing."""
        infra = cls(data_dir)
        if not environ.get("REDLINE_DATABASE_URL"):
            try:
                infra.postgres = LocalPostgres(data_dir / "postgres", may_start=False)
            except RuntimeError:
                raise RuntimeError(
                    f"{data_dir} is in use by a redline process whose PostgreSQL is not up; "
                    "try again once it is"
                ) from None
            infra.overrides["database_url"] = infra.postgres.url
        infra._add_local_settings(environ)
        return infra

    def _start_servers(self, environ: dict[str, str], *, with_nats: bool) -> None:
        die_with_runner = environ.get(DIE_WITH_RUNNER, "1").strip() != "0"
        if not environ.get("REDLINE_DATABASE_URL"):
            self.postgres = LocalPostgres(
                self.data_dir / "postgres", die_with_parent=die_with_runner
            )
            self.overrides["database_url"] = self.postgres.url
        if with_nats and not environ.get("REDLINE_NATS_URL"):
            self.nats = LocalNats(self.data_dir / "nats", die_with_parent=die_with_runner)
            self.nats.start()
            self.overrides["nats_url"] = self.nats.url

    def _add_local_settings(self, environ: dict[str, str]) -> None:
        self.overrides["data_dir"] = str(self.data_dir)
        if not environ.get("REDLINE_SECRET_KEY"):
            self.overrides["secret_key"] = _secret_key(self.data_dir)
        if not environ.get("REDLINE_OPEN_SIGNUP"):
            # A newcomer's machine: anyone on it may create a workspace.
            self.overrides["open_signup"] = True

    def stop(self) -> None:
        # A second Ctrl-C or SIGTERM must not cut the servers' shutdown short.
        previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in _STOP_SIGNALS}
        try:
            if self.nats is not None:
                self.nats.stop()
            if self.postgres is not None:
                self.postgres.stop()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)
