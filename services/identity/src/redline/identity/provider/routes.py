"""The URL map of the permission provider: /v2/workspace/permissionproviderconfig/get|update,
and /v2/auth/generate_signature, which signs a provider's decisions."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.app_keys import PERMISSION_SIGNER, PROVIDER_CONFIG
from redline.identity.fields import Empty
from redline.identity.provider.service import ProviderConfigService
from redline.identity.provider.signature import PermissionSigner

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/workspace/permissionproviderconfig/get",
        PROVIDER_CONFIG,
        ProviderConfigService.get,
        request=Empty,
        auth=AuthLevel.API_KEY,
        message="Permission provider configuration retrieved successfully.",
        summary="Get the permission provider's settings",
        tags=("config",),
    ),
    Endpoint.of(
        "/v2/workspace/permissionproviderconfig/update",
        PROVIDER_CONFIG,
        ProviderConfigService.update,
        auth=AuthLevel.API_KEY,
        message="Permission provider configuration updated successfully.",
        summary="Merge into the permission provider's settings; while on, it decides access",
        tags=("config",),
    ),
    Endpoint.of(
        "/v2/auth/generate_signature",
        PERMISSION_SIGNER,
        PermissionSigner.sign,
        auth=AuthLevel.API_KEY,
        message="Signature generated successfully.",
        summary="Sign permission decisions for a permission provider's answer",
        tags=("auth",),
    ),
]
