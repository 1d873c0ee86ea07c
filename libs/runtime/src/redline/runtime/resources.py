"""Typed app state shared by every service of a process."""

from __future__ import annotations

from aiohttp import web

from redline.bus import Bus, OutboxRelay
from redline.pg import Holder, Pool
from redline.runtime.auth import CachedVerifier
from redline.runtime.settings import RuntimeSettings

SETTINGS = web.AppKey("redline_settings", RuntimeSettings)
POOL: web.AppKey[Pool] = web.AppKey("redline_pool")
# The process's claim holder: work it claims is free for others once it dies.
HOLDER = web.AppKey("redline_holder", Holder)
BUS = web.AppKey("redline_bus", Bus)
VERIFIER = web.AppKey("redline_verifier", CachedVerifier)
RELAY = web.AppKey("redline_relay", OutboxRelay)
SECRET_KEY = web.AppKey("redline_secret_key", bytes)
