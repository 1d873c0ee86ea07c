"""Typed app state of the identity service."""

from __future__ import annotations

from aiohttp import web

from redline.identity.service.access import AccessService
from redline.identity.service.config import ConfigService
from redline.identity.service.documents import DocumentService
from redline.identity.service.folders import FolderService
from redline.identity.service.migration import MigrationService
from redline.identity.service.organizations import OrganizationService
from redline.identity.service.permissions import PermissionsService
from redline.identity.service.users import UsersService
from redline.identity.service.workspace import WorkspaceService

SERVICE = web.AppKey("identity_service", WorkspaceService)
ACCESS = web.AppKey("identity_access", AccessService)
MIGRATION = web.AppKey("identity_migration", MigrationService)
CONFIG = web.AppKey("identity_config", ConfigService)
USERS = web.AppKey("identity_users", UsersService)
PERMISSIONS = web.AppKey("identity_permissions", PermissionsService)
ORGANIZATIONS = web.AppKey("identity_organizations", OrganizationService)
FOLDERS = web.AppKey("identity_folders", FolderService)
DOCUMENTS = web.AppKey("identity_documents", DocumentService)
