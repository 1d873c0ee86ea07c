"""The URL map of /v2/auth/*: permissions and user tokens."""

from __future__ import annotations

from redline.envelope import AuthLevel, Call, Endpoint
from redline.identity.app_keys import PERMISSIONS
from redline.identity.permissions import models
from redline.identity.permissions.service import PermissionsService


async def generate_token(call: Call, request: models.GenerateToken) -> models.GeneratedToken:
    origin = call.request.headers.get("Origin")
    return await call.app[PERMISSIONS].generate_token(call.api_key, request, origin)


AUTH_TAG = ("auth",)
ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/auth/permissions/add",
        PERMISSIONS,
        PermissionsService.add,
        auth=AuthLevel.API_KEY,
        message="Permissions added successfully.",
        summary="Grant a user roles on organizations, folders and documents, maybe for a time",
        tags=AUTH_TAG,
    ),
    Endpoint.of(
        "/v2/auth/permissions/remove",
        PERMISSIONS,
        PermissionsService.remove,
        auth=AuthLevel.API_KEY,
        message="Permissions removed successfully.",
        summary="Remove a user's grants on organizations, folders and documents",
        tags=AUTH_TAG,
    ),
    Endpoint.of(
        "/v2/auth/permissions/get",
        PERMISSIONS,
        PermissionsService.get,
        auth=AuthLevel.API_KEY,
        user_tokens=True,
        message="User permissions retrieved successfully.",
        summary="Users' effective access to an organization and some of its folders and documents",
        tags=AUTH_TAG,
    ),
    Endpoint.handled(
        "/v2/auth/generate_token",
        generate_token,
        auth=AuthLevel.API_KEY,
        message="Token generated successfully.",
        summary="Issue a user token (JWT) that acts as one user, with the resources it carries",
        tags=AUTH_TAG,
    ),
    Endpoint.handled(
        "/v2/auth/token/get",
        generate_token,
        auth=AuthLevel.API_KEY,
        message="Token generated successfully.",
        summary="The older path of generate_token, which the official SDK's getToken still calls",
        tags=AUTH_TAG,
    ),
]
