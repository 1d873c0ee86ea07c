"""Settings of the identity service."""

from __future__ import annotations

from redline.runtime.settings import RuntimeSettings


class IdentitySettings(RuntimeSettings, kw_only=True, frozen=True):
    """Identity needs nothing beyond the shared settings yet."""
