"""Identity routes: the workspace itself, its API keys and their auth tokens."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.handlers import workspace as handlers
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
]
