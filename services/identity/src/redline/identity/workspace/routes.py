"""The URL map of the workspace: /v2/workspace/create|get, authtoken/ensure, its API keys (and
copying one's configuration onto another) and their auth tokens."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.app_keys import WORKSPACE
from redline.identity.fields import Empty
from redline.identity.workspace.service import WorkspaceService

TAG = ("workspace",)

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/workspace/create",
        WORKSPACE,
        WorkspaceService.create_workspace,
        auth=AuthLevel.ADMIN,
        message="Workspace created successfully",
        summary="Create a workspace with its owner and a first API key",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/get",
        WORKSPACE,
        WorkspaceService.get_workspace,
        request=Empty,
        auth=AuthLevel.WORKSPACE,
        message="Workspace retrieved successfully",
        summary="Get the workspace",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/apikey/create",
        WORKSPACE,
        WorkspaceService.create_api_key,
        auth=AuthLevel.WORKSPACE,
        message="API key created successfully.",
        summary="Create an API key (and its auth token)",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/apikeys/get",
        WORKSPACE,
        WorkspaceService.list_api_keys,
        auth=AuthLevel.WORKSPACE,
        paged=True,
        message="API keys retrieved successfully.",
        summary="List the workspace's API keys, a page at a time",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/apikey/update",
        WORKSPACE,
        WorkspaceService.update_api_key,
        auth=AuthLevel.WORKSPACE,
        message="API key updated successfully.",
        summary="Rename an API key",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/authtokens/get",
        WORKSPACE,
        WorkspaceService.get_auth_tokens,
        auth=AuthLevel.WORKSPACE,
        message="Auth tokens retrieved successfully.",
        summary="Get the auth tokens of an API key",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/authtoken/reset",
        WORKSPACE,
        WorkspaceService.reset_auth_token,
        auth=AuthLevel.WORKSPACE,
        message="Auth token reset successfully.",
        summary="Replace an API key's auth token; the old one stops working at once",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/apikey/copy",
        WORKSPACE,
        WorkspaceService.copy_api_key,
        auth=AuthLevel.WORKSPACE,
        message="API key configuration copied successfully.",
        summary="Configure one API key as another of the workspace is configured",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/authtoken/ensure",
        WORKSPACE,
        WorkspaceService.ensure_auth_token,
        request=Empty,
        auth=AuthLevel.WORKSPACE,
        message="Workspace auth token ensured successfully.",
        summary="Get the workspace auth token (every workspace always has one)",
        tags=TAG,
    ),
]
