"""Typed app state of the identity service."""

from __future__ import annotations

from aiohttp import web

from redline.identity.advanced_webhooks.service import AdvancedWebhookService
from redline.identity.config.service import ConfigService
from redline.identity.directory.documents.service import DocumentService
from redline.identity.directory.folders.service import FolderService
from redline.identity.directory.organizations.service import OrganizationService
from redline.identity.migration.service import MigrationService
from redline.identity.permissions.access import AccessService
from redline.identity.permissions.service import PermissionsService
from redline.identity.users.service import UsersService
from redline.identity.workspace.service import WorkspaceService

WORKSPACE = web.AppKey("identity_workspace", WorkspaceService)
ACCESS = web.AppKey("identity_access", AccessService)
MIGRATION = web.AppKey("identity_migration", MigrationService)
CONFIG = web.AppKey("identity_config", ConfigService)
ADVANCED_WEBHOOKS = web.AppKey("identity_advanced_webhooks", AdvancedWebhookService)
USERS = web.AppKey("identity_users", UsersService)
PERMISSIONS = web.AppKey("identity_permissions", PermissionsService)
ORGANIZATIONS = web.AppKey("identity_organizations", OrganizationService)
FOLDERS = web.AppKey("identity_folders", FolderService)
DOCUMENTS = web.AppKey("identity_documents", DocumentService)
