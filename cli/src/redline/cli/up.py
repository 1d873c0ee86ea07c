"""`redline up`: run the whole system on one port, starting local servers as needed."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from redline.cli.local import LocalInfrastructure
from redline.cli.lock import DataDirInUse, DataDirLock
from redline.runtime.logs import configure_logging
from redline.runtime.serve import serve


def run_up(*, split: bool = False) -> int:
    """Serve until Ctrl-C or SIGTERM; either one stops taking requests, lets those in flight
    finish, stops NATS, then PostgreSQL, then gives up the data dir. `split` runs each service
    in a process of its own behind a gateway, as deployed."""
    environ = dict(os.environ)
    data_dir = Path(environ.get("REDLINE_DATA_DIR", ".redline")).resolve()
    configure_logging(
        environ.get("REDLINE_LOG_LEVEL", "INFO"), environ.get("REDLINE_LOG_FORMAT", "json")
    )
    # Until the server takes over both signals, SIGTERM takes Ctrl-C's way out: whatever has
    # started is stopped on the way.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        lock = DataDirLock.acquire(data_dir)
    except DataDirInUse as exc:
        sys.stderr.write(f"redline: {exc}\n")
        return 1
    try:
        if split:
            from redline.cli.split import run_split

            run_split(data_dir, environ)
        else:
            _run(data_dir, environ)
    except KeyboardInterrupt:
        return 130
    finally:
        lock.release()
    return 0


def _run(data_dir: Path, environ: dict[str, str]) -> None:
    # Imported once the data dir is ours: every service comes with it, which takes seconds that
    # a second runner on the same dir should not spend before it is told no.
    from redline.cli.system import create_system_app

    infra = LocalInfrastructure.start(data_dir, environ)
    try:
        app, settings = create_system_app(environ, **infra.overrides)
        base = f"http://{settings.host}:{settings.port}"
        banner = (
            f"Redline is up at {base}  (data in {data_dir})\n"
            f"  API docs:          {base}/docs\n"
            f"  Create a workspace: curl -s -X POST {base}/v2/workspace/create "
            "-H 'content-type: application/json' "
            """-d '{"data": {"ownerEmail": "you@example.com"}}'\n"""
        )
        serve(app, settings, ready_message=banner)
    finally:
        infra.stop()
