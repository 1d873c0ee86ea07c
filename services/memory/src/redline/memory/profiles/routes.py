"""The URL map of profiles: /v2/memory/profiles/get."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style
from redline.memory.app_keys import PROFILES
from redline.memory.profiles import models


async def get_profile(call: Call, request: models.GetProfile) -> models.Profile | None:
    return await call.app[PROFILES].get(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/memory/profiles/get",
        get_profile,
        models.GetProfile,
        models.Profile | None,
        style=Style.PLAIN,
        summary="A reviewer's profile from their judgments, or null before they have any",
        tags=("memory",),
    ),
]
