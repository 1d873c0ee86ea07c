"""Settings of the identity service."""

from __future__ import annotations

import msgspec

from redline.identity.fields import AccessType
from redline.runtime.settings import RuntimeSettings


class IdentitySettings(RuntimeSettings, kw_only=True, frozen=True):
    # How long a workspace document may be served from memory. Changes made through any replica
    # drop it at once (identity events on NATS); the time bounds staleness if NATS is down.
    workspace_cache_ttl_s: float = 10.0
    # Access type of documents and folders that set none (see docs/decisions.md).
    default_access_type: AccessType = "public"
    # Lifetime of user tokens from /v2/auth/generate_token.
    user_token_ttl_s: int = 48 * 3600
    # How long a permission provider has to answer. Other services' access checks wait 2 s for
    # identity's answer, so this stays below that; a late provider means no access.
    permission_provider_timeout_s: float = 1.5
    # How long a permission provider's decision is reused (less when it expires sooner).
    permission_provider_cache_ttl_s: float = 5.0
    # Services that hold document data and take part in every document migration.
    migration_participants: list[str] = msgspec.field(
        default_factory=lambda: ["identity", "comments", "notify", "memory", "workflow"]
    )
