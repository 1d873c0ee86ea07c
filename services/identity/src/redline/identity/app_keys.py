"""Typed app state of the identity service."""

from __future__ import annotations

from aiohttp import web

from redline.identity.service import IdentityService

SERVICE = web.AppKey("identity_service", IdentityService)
