"""The URL map of the permission provider: /v2/workspace/permissionproviderconfig/get|update,
and /v2/auth/generate_signature, which signs a provider's decisions."""

from __future__ import annotations

from redline.envelope import AuthLevel, Call, Endpoint
from redline.identity.app_keys import PERMISSION_SIGNER, PROVIDER_CONFIG
from redline.identity.fields import Empty
from redline.identity.provider import models


async def get_provider_config(call: Call, request: Empty) -> models.PermissionProviderConfig:
    return await call.app[PROVIDER_CONFIG].get(call.api_key)


async def update_provider_config(
    call: Call, request: models.UpdatePermissionProviderConfig
) -> models.PermissionProviderConfig:
    return await call.app[PROVIDER_CONFIG].update(call.api_key, request)


async def generate_signature(call: Call, request: models.GenerateSignature) -> models.Signature:
    return await call.app[PERMISSION_SIGNER].sign(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/workspace/permissionproviderconfig/get",
        get_provider_config,
        Empty,
        models.PermissionProviderConfig,
        auth=AuthLevel.API_KEY,
        message="Permission provider configuration retrieved successfully.",
        summary="Get the permission provider's settings",
        tags=("config",),
    ),
    Endpoint(
        "/v2/workspace/permissionproviderconfig/update",
        update_provider_config,
        models.UpdatePermissionProviderConfig,
        models.PermissionProviderConfig,
        auth=AuthLevel.API_KEY,
        message="Permission provider configuration updated successfully.",
        summary="Merge into the permission provider's settings; while on, it decides access",
        tags=("config",),
    ),
    Endpoint(
        "/v2/auth/generate_signature",
        generate_signature,
        models.GenerateSignature,
        models.Signature,
        auth=AuthLevel.API_KEY,
        message="Signature generated successfully.",
        summary="Sign permission decisions for a permission provider's answer",
        tags=("auth",),
    ),
]
