"""HTTP handlers of /v2/auth/*: permissions and user tokens."""

from __future__ import annotations

from redline.envelope import Call
from redline.identity.app_keys import PERMISSIONS
from redline.identity.models import permissions as models


async def add_permissions(call: Call, request: models.AddPermissions) -> None:
    await call.app[PERMISSIONS].add(call.api_key, request)


async def remove_permissions(call: Call, request: models.RemovePermissions) -> None:
    await call.app[PERMISSIONS].remove(call.api_key, request)


async def get_permissions(
    call: Call, request: models.GetPermissions
) -> dict[str, models.UserPermissions]:
    return await call.app[PERMISSIONS].get(call.api_key, request)


async def generate_token(call: Call, request: models.GenerateToken) -> models.GeneratedToken:
    return await call.app[PERMISSIONS].generate_token(call.api_key, request)
