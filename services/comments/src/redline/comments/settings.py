"""Settings of the comments service."""

from __future__ import annotations

from redline.runtime.settings import RuntimeSettings


class CommentsSettings(RuntimeSettings, kw_only=True, frozen=True):
    # The get endpoint's page size when none is asked for.
    default_page_size: int = 1000
