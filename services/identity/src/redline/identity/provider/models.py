"""The permission provider and signed permission decisions: request and response Structs of
/v2/workspace/permissionproviderconfig/get|update and /v2/auth/generate_signature."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from redline.identity.fields import Id, Request, ResourceType, Role, Url
from redline.webhooks import HEADER_VALUE_PATTERN

# Sent in a header to the provider: a header value.
ProviderToken = Annotated[str, Meta(max_length=1024, pattern=f"^{HEADER_VALUE_PATTERN}$")]
# Up to the year 9999, in ms.
EpochMs = Annotated[int, Meta(ge=0, le=253_402_300_799_999)]
MAX_SIGNED = 100


class ProviderConfigChange(Request):
    # "" clears the address.
    permissionProviderUrl: Url | None = None
    authToken: ProviderToken | None = None


class UpdatePermissionProviderConfig(Request):
    __openapi_any_of__ = (("usePermissionProvider",), ("permissionProviderConfig",))

    usePermissionProvider: bool | None = None
    permissionProviderConfig: ProviderConfigChange | None = None


class ProviderConfigShown(msgspec.Struct):
    permissionProviderUrl: str = ""
    authToken: str = ""


class PermissionProviderConfig(msgspec.Struct):
    usePermissionProvider: bool = False
    permissionProviderConfig: ProviderConfigShown = msgspec.field(
        default_factory=ProviderConfigShown
    )


class PermissionData(Request):
    """One decision to sign, as a provider answers it."""

    userId: Id
    resourceId: Id
    type: ResourceType
    hasAccess: bool
    accessRole: Role | None = None
    expiresAt: EpochMs | None = None


class GenerateSignature(Request):
    permissions: Annotated[list[PermissionData], Meta(min_length=1, max_length=MAX_SIGNED)]


class Signature(msgspec.Struct):
    signature: str
