"""The URL map of patterns: /v2/memory/patterns/get."""

from __future__ import annotations

from redline.envelope import Endpoint, Style
from redline.memory.app_keys import PATTERNS
from redline.memory.patterns.service import PatternService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/memory/patterns/get",
        PATTERNS,
        PatternService.get,
        style=Style.PLAIN,
        summary="How reviewers tend to decide on similar things, most recently updated first",
        tags=("memory",),
    ),
]
