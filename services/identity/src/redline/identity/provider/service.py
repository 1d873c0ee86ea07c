"""Rules of the permission provider's settings (/v2/workspace/permissionproviderconfig/*).

- Updates merge: a field left out keeps its value (the token stays when only the address
  changes). A request with neither field is refused.
- The address is "" (cleared) or an http(s) URL the address guard lets through (plain http only
  for allow-listed hosts), checked when saved and again, resolved, at every call.
- The token is sealed at rest and shown to the key's own callers, as it was set.
- Every change announces an access change for the key, so cached decisions everywhere are
  dropped: the provider, or its absence, decides from then on.
"""

from __future__ import annotations

import msgspec

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity.access_changes import (
    ALL_ORGANIZATIONS,
    ForgetAccess,
    write_access_changed,
)
from redline.identity.caller import require_key_caller
from redline.identity.key_settings import storage
from redline.identity.key_settings.rules import url_problem
from redline.identity.key_settings.storage import Section
from redline.identity.provider import models
from redline.identity.provider.stored import ProviderSettings, open_token, seal_token, settings_of
from redline.identity.tokens import Sealer
from redline.pg import Pool
from redline.webhooks import AddressGuard


class ProviderConfigService:
    def __init__(
        self, pool: Pool, sealer: Sealer, guard: AddressGuard, forget_access: ForgetAccess
    ) -> None:
        self._pool = pool
        self._sealer = sealer
        self._guard = guard
        self._forget_access = forget_access

    def _shown(self, api_key: str, settings: ProviderSettings) -> models.PermissionProviderConfig:
        return models.PermissionProviderConfig(
            usePermissionProvider=settings.usePermissionProvider,
            permissionProviderConfig=models.ProviderConfigShown(
                permissionProviderUrl=settings.permissionProviderUrl,
                authToken=open_token(self._sealer, api_key, settings),
            ),
        )

    async def get(self, caller: ApiKeyPrincipal) -> models.PermissionProviderConfig:
        require_key_caller(caller)
        stored = await storage.read_config(self._pool, caller.api_key)
        return self._shown(caller.api_key, settings_of(stored.permission_provider))

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdatePermissionProviderConfig
    ) -> models.PermissionProviderConfig:
        require_key_caller(caller)
        if request.usePermissionProvider is None and request.permissionProviderConfig is None:
            raise InvalidArgument.field(
                "data",
                "Give usePermissionProvider or permissionProviderConfig (or both).",
                code="missing_field",
            )
        change = request.permissionProviderConfig or models.ProviderConfigChange()
        if change.permissionProviderUrl is not None:
            problem = url_problem(change.permissionProviderUrl, self._guard)
            if problem is not None:
                raise InvalidArgument.field(
                    "data.permissionProviderConfig.permissionProviderUrl",
                    f"Please enter a valid URL: the address {problem}.",
                )
        async with self._pool.acquire() as conn, conn.transaction():
            stored = await storage.lock_config(conn, caller.api_key)
            settings = settings_of(stored.permission_provider)
            if request.usePermissionProvider is not None:
                settings = msgspec.structs.replace(
                    settings, usePermissionProvider=request.usePermissionProvider
                )
            if change.permissionProviderUrl is not None:
                settings = msgspec.structs.replace(
                    settings, permissionProviderUrl=change.permissionProviderUrl
                )
            if change.authToken is not None:
                sealed = seal_token(self._sealer, caller.api_key, change.authToken)
                settings = msgspec.structs.replace(settings, authTokenSealed=sealed)
            document = msgspec.to_builtins(settings)
            await storage.save_section(conn, caller.api_key, Section.PERMISSION_PROVIDER, document)
            await write_access_changed(conn, caller, [ALL_ORGANIZATIONS])
        self._forget_access(caller.api_key)
        return self._shown(caller.api_key, settings)
