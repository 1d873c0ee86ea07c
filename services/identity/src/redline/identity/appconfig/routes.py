"""The URL map of an API key's app configuration: /v2/workspace/apikeyconfig/get|update, and the
same under /v2/workspace/apikeymetadata/, the paths the hosted product still answers."""

from __future__ import annotations

from redline.envelope import AuthLevel, Call, Endpoint
from redline.identity.app_keys import APP_CONFIG
from redline.identity.appconfig import models
from redline.identity.fields import Empty


async def get_app_config(call: Call, request: Empty) -> models.AppConfig:
    return await call.app[APP_CONFIG].get(call.api_key)


async def update_app_config(call: Call, request: models.UpdateAppConfig) -> models.AppConfigUpdated:
    return await call.app[APP_CONFIG].update(call.api_key, request)


TAG = ("config",)


def _endpoints(base: str) -> list[Endpoint]:
    return [
        Endpoint(
            f"{base}/get",
            get_app_config,
            Empty,
            models.AppConfig,
            auth=AuthLevel.API_KEY,
            message="API key metadata retrieved successfully.",
            summary="Get the API key's app configuration (AI model keys masked)",
            tags=TAG,
        ),
        Endpoint(
            f"{base}/update",
            update_app_config,
            models.UpdateAppConfig,
            models.AppConfigUpdated,
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
