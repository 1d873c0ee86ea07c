"""`redline up`: run the whole system on one port, starting local servers as needed."""

from __future__ import annotations

import os
from pathlib import Path

from redline.cli.local import LocalInfrastructure
from redline.cli.system import create_system_app
from redline.runtime.serve import configure_logging, serve


def run_up() -> None:
    environ = dict(os.environ)
    data_dir = Path(environ.get("REDLINE_DATA_DIR", ".redline")).resolve()
    configure_logging(environ.get("REDLINE_LOG_LEVEL", "INFO"))
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
