"""The URL map of an API key's app configuration: /v2/workspace/apikeyconfig/get|update, and the
same under /v2/workspace/apikeymetadata/, the paths the hosted product still answers."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.app_keys import APP_SETTINGS
from redline.identity.app_settings.service import AppSettingsService
from redline.identity.fields import Empty

TAG = ("config",)


def _endpoints(base: str) -> list[Endpoint]:
    return [
        Endpoint.of(
            f"{base}/get",
            APP_SETTINGS,
            AppSettingsService.get,
            request=Empty,
            auth=AuthLevel.API_KEY,
            message="API key metadata retrieved successfully.",
            summary="Get the API key's app configuration (AI model keys masked)",
            tags=TAG,
        ),
        Endpoint.of(
            f"{base}/update",
            APP_SETTINGS,
            AppSettingsService.update,
            auth=AuthLevel.API_KEY,
            message="API key configuration updated successfully.",
            summary="Merge fields into the API key's app configuration",
            tags=TAG,
        ),
    ]


ENDPOINTS: list[Endpoint] = [
    *_endpoints("/v2/workspace/apikeyconfig"),
    *_endpoints("/v2/workspace/apikeymetadata"),
]
