"""Settings of the identity service."""

from __future__ import annotations

from redline.runtime.settings import RuntimeSettings


class IdentitySettings(RuntimeSettings, kw_only=True, frozen=True):
    # How long a workspace document may be served from memory. Changes made through any replica
    # drop it at once (identity events on NATS); the time bounds staleness if NATS is down.
    workspace_cache_ttl_s: float = 10.0
