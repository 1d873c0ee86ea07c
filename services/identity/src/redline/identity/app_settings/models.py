"""The app configuration of an API key: request and response Structs of
/v2/workspace/apikeyconfig/get|update."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from redline.identity.fields import AccessType, Request

AiProvider = Literal["openai", "anthropic", "gemini"]
# Provider keys are a few hundred characters at most; the bound leaves room.
CustomerApiKey = Annotated[str, Meta(min_length=1, max_length=4096)]


class AiModelApiKey(Request):
    provider: AiProvider
    customerApiKey: CustomerApiKey


class UpdateAppConfig(Request):
    __openapi_any_of__ = tuple(
        (name,)
        for name in (
            "enablePrivateComments",
            "requireJwtToken",
            "requireAutoOrgUser",
            "defaultDocumentAccessType",
            "aiModelApiKey",
        )
    )

    enablePrivateComments: bool | None = None
    requireJwtToken: bool | None = None
    requireAutoOrgUser: bool | None = None
    defaultDocumentAccessType: AccessType | None = None
    aiModelApiKey: Annotated[list[AiModelApiKey], Meta(min_length=1, max_length=3)] | None = None


class AiModelShown(msgspec.Struct):
    """An AI model key as it is shown: masked, never the key itself."""

    displayText: str


class AppConfig(msgspec.Struct, omit_defaults=True):
    """What apikeyconfig/get answers. `aiModelsConfig` only once a key was stored."""

    ownerEmail: str
    planInfo: dict[str, Any]
    defaultDocumentAccessType: AccessType
    isPrivateCommentsEnabled: bool
    requireJwtToken: bool
    requireAutoOrgUser: bool
    aiModelsConfig: dict[str, AiModelShown] | UnsetType = UNSET


class AppConfigUpdated(msgspec.Struct, omit_defaults=True):
    """What apikeyconfig/update answers: the values after the write of the fields sent."""

    enablePrivateComments: bool | UnsetType = UNSET
    requireJwtToken: bool | UnsetType = UNSET
    requireAutoOrgUser: bool | UnsetType = UNSET
    defaultDocumentAccessType: AccessType | UnsetType = UNSET
    aiModelsConfig: dict[str, AiModelShown] | UnsetType = UNSET
