"""The identity service's whole URL map."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.handlers import migration as migration_handlers
from redline.identity.handlers import workspace as handlers
from redline.identity.models import migration as migration_models
from redline.identity.models import workspace as models
from redline.identity.models.common import Empty

TAG = ("workspace",)

WORKSPACE = [
    Endpoint(
        "/v2/workspace/create",
        handlers.create_workspace,
        models.CreateWorkspace,
        models.Workspace,
        auth=AuthLevel.ADMIN,
        message="Workspace created successfully.",
        summary="Create a workspace with its owner and a first API key",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/get",
        handlers.get_workspace,
        Empty,
        models.Workspace,
        auth=AuthLevel.WORKSPACE,
        message="Workspace retrieved successfully.",
        summary="Get the workspace",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/apikey/create",
        handlers.create_api_key,
        models.CreateApiKey,
        models.CreatedApiKey,
        auth=AuthLevel.WORKSPACE,
        message="API key created successfully.",
        summary="Create an API key (and its auth token)",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/apikeys/get",
        handlers.list_api_keys,
        models.ListApiKeys,
        list[models.ApiKeySummary],
        auth=AuthLevel.WORKSPACE,
        paged=True,
        message="API keys retrieved successfully.",
        summary="List the workspace's API keys, a page at a time",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/apikey/update",
        handlers.update_api_key,
        models.UpdateApiKey,
        None,
        auth=AuthLevel.WORKSPACE,
        message="API key updated successfully.",
        summary="Rename an API key",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/authtokens/get",
        handlers.get_auth_tokens,
        models.ApiKeyRef,
        models.AuthTokens,
        auth=AuthLevel.WORKSPACE,
        message="Auth tokens retrieved successfully.",
        summary="Get the auth tokens of an API key",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/authtoken/reset",
        handlers.reset_auth_token,
        models.ApiKeyRef,
        models.ResetAuthToken,
        auth=AuthLevel.WORKSPACE,
        message="Auth token reset successfully.",
        summary="Replace an API key's auth token; the old one stops working at once",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/domains/get",
        handlers.get_domains,
        Empty,
        models.Domains,
        auth=AuthLevel.API_KEY,
        message="Domains retrieved successfully.",
        summary="List the API key's allowed domains",
        tags=TAG,
    ),
]

# Per API key: allowed domains, webhook, advanced webhook and activity configuration.
CONFIG: list[Endpoint] = []

# Organizations, folders and documents.
DIRECTORY: list[Endpoint] = []

# Users, permissions, user tokens.
USERS_AND_ACCESS: list[Endpoint] = []

# Moving a document's data to a new document id.
MIGRATION: list[Endpoint] = [
    Endpoint(
        "/v2/organizations/documents/migrate",
        migration_handlers.migrate_document,
        migration_models.MigrateDocument,
        migration_models.MigrationStarted,
        message="Document migration started.",
        summary="Move everything keyed by a document id to a new id, in every service",
        tags=("documents",),
    ),
    Endpoint(
        "/v2/organizations/documents/migrate/status",
        migration_handlers.migration_status,
        migration_models.MigrationStatusRequest,
        migration_models.MigrationState,
        message="Migration status retrieved.",
        summary="Status of a document migration: pending, in_progress, completed or failed",
        tags=("documents",),
    ),
]

ENDPOINTS = [*WORKSPACE, *CONFIG, *DIRECTORY, *USERS_AND_ACCESS, *MIGRATION]
