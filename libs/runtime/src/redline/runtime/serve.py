"""Serving an app until SIGINT or SIGTERM, with logs configured once."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from aiohttp import web

from redline.runtime.app import ServicePlugin, build_app, migrate_only
from redline.runtime.logs import configure_logging
from redline.runtime.settings import RuntimeSettings, SettingsError, load_settings

S = TypeVar("S", bound=RuntimeSettings)

log = logging.getLogger("redline.runtime.serve")


def new_event_loop(kind: str) -> asyncio.AbstractEventLoop:
    """A loop of `kind`: uvloop where it is installed (measured faster for these services, see
    docs/benchmarks.md), else asyncio's own."""
    if kind == "uvloop":
        try:
            import uvloop
        except ImportError:
            log.warning("uvloop is not installed; running on asyncio's event loop")
        else:
            return uvloop.new_event_loop()
    elif kind != "asyncio":
        raise SettingsError(f"REDLINE_EVENT_LOOP: {kind!r} is neither uvloop nor asyncio")
    return asyncio.new_event_loop()


def serve(
    app: web.Application,
    settings: RuntimeSettings,
    *,
    ready_message: str | None = None,
    **server_options: Any,
) -> None:
    """Serve until a signal; `ready_message` is printed once the app has started (migrations
    run, consumers up) and its port accepts connections, so whoever reads it may call at once."""
    configure_logging(settings.log_level, settings.log_format)

    def announce(_: str) -> None:
        # aiohttp calls this with its own "Running on" text after the sites have started.
        if ready_message is not None:
            print(ready_message, flush=True)

    web.run_app(
        app,
        loop=new_event_loop(settings.event_loop),
        host=settings.host,
        port=settings.port,
        print=announce,
        access_log=None,
        handle_signals=True,
        shutdown_timeout=settings.shutdown_timeout_s,
        **server_options,
    )


def run_service(
    name: str, settings_type: type[S], plugin: Callable[[S], ServicePlugin], argv: list[str]
) -> int:
    """`python -m redline.<name>`: serve the service alone until SIGTERM. With `migrate`, apply
    its migrations and exit, as a deployment's init container does once per rollout."""
    settings = load_settings(settings_type)
    if argv == ["migrate"]:
        configure_logging(settings.log_level, settings.log_format)
        asyncio.run(migrate_only(settings, [plugin(settings)]))
        return 0
    if argv:
        sys.stderr.write(f"usage: python -m redline.{name} [migrate]\n")
        return 2
    serve(build_app(settings, [plugin(settings)]), settings)
    return 0
