"""Typed app state of the identity service."""

from __future__ import annotations

from aiohttp import web

from redline.identity.advanced_webhooks.service import AdvancedWebhookService
from redline.identity.app_settings.service import AppSettingsService
from redline.identity.directory.disable_state.service import DisableStateService
from redline.identity.directory.documents.service import DocumentService
from redline.identity.directory.folders.service import FolderService
from redline.identity.directory.organizations.service import OrganizationService
from redline.identity.directory.user_groups.service import UserGroupService
from redline.identity.domainrequests.service import DomainRequestService
from redline.identity.invitations.service import InvitationService
from redline.identity.key_settings.service import KeySettingsService
from redline.identity.login.service import LoginService
from redline.identity.migration.service import MigrationService
from redline.identity.permissions.access import AccessService
from redline.identity.permissions.service import PermissionsService
from redline.identity.personal_data.export import UserDataExport
from redline.identity.personal_data.jobs import ErasureJobs
from redline.identity.provider.service import ProviderConfigService
from redline.identity.provider.signature import PermissionSigner
from redline.identity.users.service import UsersService
from redline.identity.workspace.service import WorkspaceService

WORKSPACE = web.AppKey("identity_workspace", WorkspaceService)
ACCESS = web.AppKey("identity_access", AccessService)
MIGRATION = web.AppKey("identity_migration", MigrationService)
KEY_SETTINGS = web.AppKey("identity_key_settings", KeySettingsService)
ADVANCED_WEBHOOKS = web.AppKey("identity_advanced_webhooks", AdvancedWebhookService)
USERS = web.AppKey("identity_users", UsersService)
PERMISSIONS = web.AppKey("identity_permissions", PermissionsService)
ORGANIZATIONS = web.AppKey("identity_organizations", OrganizationService)
FOLDERS = web.AppKey("identity_folders", FolderService)
DOCUMENTS = web.AppKey("identity_documents", DocumentService)
LOGIN = web.AppKey("identity_login", LoginService)
INVITATIONS = web.AppKey("identity_invitations", InvitationService)
USER_GROUPS = web.AppKey("identity_user_groups", UserGroupService)
DISABLE_STATE = web.AppKey("identity_disable_state", DisableStateService)
USER_DATA_EXPORT = web.AppKey("identity_user_data_export", UserDataExport)
ERASURE_JOBS = web.AppKey("identity_erasure_jobs", ErasureJobs)
APP_SETTINGS = web.AppKey("identity_app_settings", AppSettingsService)
DOMAIN_REQUESTS = web.AppKey("identity_domain_requests", DomainRequestService)
PROVIDER_CONFIG = web.AppKey("identity_provider_config", ProviderConfigService)
PERMISSION_SIGNER = web.AppKey("identity_permission_signer", PermissionSigner)
