"""How a permission provider's settings are stored: the `permission_provider` document of the
key's configuration, its auth token sealed for that key."""

from __future__ import annotations

import base64

import msgspec

from redline.identity.key_settings.storage import JsonObject
from redline.identity.tokens import Sealer


class ProviderSettings(msgspec.Struct, frozen=True):
    """The stored document; `authTokenSealed` is base64 of the sealed token, "" for none."""

    usePermissionProvider: bool = False
    permissionProviderUrl: str = ""
    authTokenSealed: str = ""


def _binding(api_key: str) -> str:
    return f"{api_key}:permission-provider"


def settings_of(document: JsonObject | None) -> ProviderSettings:
    return msgspec.convert(document or {}, ProviderSettings)


def seal_token(sealer: Sealer, api_key: str, token: str) -> str:
    if not token:
        return ""
    return base64.b64encode(sealer.seal(token, _binding(api_key))).decode()


def open_token(sealer: Sealer, api_key: str, settings: ProviderSettings) -> str:
    if not settings.authTokenSealed:
        return ""
    return sealer.unseal(base64.b64decode(settings.authTokenSealed), _binding(api_key))


def reseal_provider(
    document: JsonObject | None, sealer: Sealer, source: str, target: str
) -> JsonObject | None:
    """`source`'s provider settings as `target` stores them (the token sealed for `target`)."""
    if document is None:
        return None
    settings = settings_of(document)
    token = open_token(sealer, source, settings)
    resealed = msgspec.structs.replace(settings, authTokenSealed=seal_token(sealer, target, token))
    copied: JsonObject = msgspec.to_builtins(resealed)
    return copied
