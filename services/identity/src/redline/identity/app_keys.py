"""Typed app state of the identity service."""

from __future__ import annotations

from aiohttp import web

from redline.identity.service.access import AccessService
from redline.identity.service.migration import MigrationService
from redline.identity.service.workspace import WorkspaceService

SERVICE = web.AppKey("identity_service", WorkspaceService)
ACCESS = web.AppKey("identity_access", AccessService)
MIGRATION = web.AppKey("identity_migration", MigrationService)
