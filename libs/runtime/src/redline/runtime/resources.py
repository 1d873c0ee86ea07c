"""Typed app state shared by every service of a process."""

from __future__ import annotations

from aiohttp import web

from redline.bus import Bus, OutboxRelay
from redline.pg import Pool
from redline.runtime.auth import CachedVerifier
from redline.runtime.settings import RuntimeSettings

SETTINGS = web.AppKey("redline_settings", RuntimeSettings)
POOL: web.AppKey[Pool] = web.AppKey("redline_pool")
BUS = web.AppKey("redline_bus", Bus)
VERIFIER = web.AppKey("redline_verifier", CachedVerifier)
RELAY = web.AppKey("redline_relay", OutboxRelay)
SECRET_KEY = web.AppKey("redline_secret_key", bytes)
