"""The URL map of the workspace: /v2/workspace/create|get, authtoken/ensure, its API keys (and
copying one's configuration onto another) and their auth tokens."""

from __future__ import annotations

from redline.envelope import AuthLevel, Call, Endpoint, Reply
from redline.identity.app_keys import WORKSPACE
from redline.identity.fields import Empty
from redline.identity.workspace import models


async def create_workspace(call: Call, request: models.CreateWorkspace) -> models.Workspace:
    return await call.app[WORKSPACE].create_workspace(request)


async def get_workspace(call: Call, request: Empty) -> models.Workspace:
    return await call.app[WORKSPACE].get_workspace(call.workspace)


async def create_api_key(call: Call, request: models.CreateApiKey) -> models.CreatedApiKey:
    return await call.app[WORKSPACE].create_api_key(call.workspace, request)


async def list_api_keys(
    call: Call, request: models.ListApiKeys
) -> Reply[list[models.ApiKeySummary]]:
    return await call.app[WORKSPACE].list_api_keys(call.workspace, request)


async def update_api_key(call: Call, request: models.UpdateApiKey) -> None:
    await call.app[WORKSPACE].update_api_key(call.workspace, request)


async def get_auth_tokens(call: Call, request: models.ApiKeyRef) -> models.AuthTokens:
    return await call.app[WORKSPACE].get_auth_tokens(call.workspace, request)


async def reset_auth_token(call: Call, request: models.ApiKeyRef) -> models.ResetAuthToken:
    return await call.app[WORKSPACE].reset_auth_token(call.workspace, request)


async def copy_api_key(call: Call, request: models.CopyApiKey) -> models.CopiedApiKey:
    return await call.app[WORKSPACE].copy_api_key(call.workspace, request)


async def ensure_auth_token(call: Call, request: Empty) -> models.WorkspaceAuthToken:
    return await call.app[WORKSPACE].ensure_auth_token(call.workspace)


TAG = ("workspace",)

ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/workspace/create",
        create_workspace,
        models.CreateWorkspace,
        models.Workspace,
        auth=AuthLevel.ADMIN,
        message="Workspace created successfully",
        summary="Create a workspace with its owner and a first API key",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/get",
        get_workspace,
        Empty,
        models.Workspace,
        auth=AuthLevel.WORKSPACE,
        message="Workspace retrieved successfully",
        summary="Get the workspace",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/apikey/create",
        create_api_key,
        models.CreateApiKey,
        models.CreatedApiKey,
        auth=AuthLevel.WORKSPACE,
        message="API key created successfully.",
        summary="Create an API key (and its auth token)",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/apikeys/get",
        list_api_keys,
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
        update_api_key,
        models.UpdateApiKey,
        None,
        auth=AuthLevel.WORKSPACE,
        message="API key updated successfully.",
        summary="Rename an API key",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/authtokens/get",
        get_auth_tokens,
        models.ApiKeyRef,
        models.AuthTokens,
        auth=AuthLevel.WORKSPACE,
        message="Auth tokens retrieved successfully.",
        summary="Get the auth tokens of an API key",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/authtoken/reset",
        reset_auth_token,
        models.ApiKeyRef,
        models.ResetAuthToken,
        auth=AuthLevel.WORKSPACE,
        message="Auth token reset successfully.",
        summary="Replace an API key's auth token; the old one stops working at once",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/apikey/copy",
        copy_api_key,
        models.CopyApiKey,
        models.CopiedApiKey,
        auth=AuthLevel.WORKSPACE,
        message="API key configuration copied successfully.",
        summary="Configure one API key as another of the workspace is configured",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/authtoken/ensure",
        ensure_auth_token,
        Empty,
        models.WorkspaceAuthToken,
        auth=AuthLevel.WORKSPACE,
        message="Workspace auth token ensured successfully.",
        summary="Get the workspace auth token (every workspace always has one)",
        tags=TAG,
    ),
]
