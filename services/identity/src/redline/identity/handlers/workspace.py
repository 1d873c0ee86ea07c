"""HTTP handlers: take the caller and the decoded request, call the service, return data."""

from __future__ import annotations

from redline.envelope import Call, Reply, paged
from redline.identity.app_keys import SERVICE
from redline.identity.models import workspace as models
from redline.identity.models.common import Empty


async def create_workspace(call: Call, request: models.CreateWorkspace) -> models.Workspace:
    return await call.app[SERVICE].create_workspace(request)


async def get_workspace(call: Call, request: Empty) -> models.Workspace:
    return await call.app[SERVICE].get_workspace(call.workspace.workspace_id)


async def create_api_key(call: Call, request: models.CreateApiKey) -> models.CreatedApiKey:
    return await call.app[SERVICE].create_api_key(call.workspace.workspace_id, request)


async def list_api_keys(
    call: Call, request: models.ListApiKeys
) -> Reply[list[models.ApiKeySummary]]:
    keys, next_token = await call.app[SERVICE].list_api_keys(call.workspace.workspace_id, request)
    return paged(keys, next_token)


async def update_api_key(call: Call, request: models.UpdateApiKey) -> None:
    await call.app[SERVICE].update_api_key(call.workspace.workspace_id, request)


async def get_auth_tokens(call: Call, request: models.ApiKeyRef) -> models.AuthTokens:
    return await call.app[SERVICE].get_auth_tokens(call.workspace.workspace_id, request.apiKey)


async def reset_auth_token(call: Call, request: models.ApiKeyRef) -> models.ResetAuthToken:
    return await call.app[SERVICE].reset_auth_token(call.workspace.workspace_id, request.apiKey)
