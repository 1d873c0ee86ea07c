"""The URL map of profiles: /v2/memory/profiles/get."""

from __future__ import annotations

from redline.envelope import Endpoint, Style
from redline.memory.app_keys import PROFILES
from redline.memory.profiles.service import ProfileService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/memory/profiles/get",
        PROFILES,
        ProfileService.get,
        style=Style.PLAIN,
        summary="A reviewer's profile from their judgments, or null before they have any",
        tags=("memory",),
    ),
]
