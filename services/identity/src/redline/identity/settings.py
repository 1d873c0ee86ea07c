"""Settings of the identity service."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from redline.identity.fields import AccessType
from redline.runtime.settings import RuntimeSettings


class IdentitySettings(RuntimeSettings, kw_only=True, frozen=True):
    # How long a workspace document may be served from memory. Changes made through any replica
    # drop it at once (identity events on NATS); the time bounds staleness if NATS is down.
    workspace_cache_ttl_s: float = 10.0
    # Access type of documents and folders that set none (see docs/decisions/identity.md).
    default_access_type: AccessType = "public"
    # API keys one workspace may hold; /v2/workspace/apikey/create refuses one past it.
    max_api_keys_per_workspace: Annotated[int, Meta(ge=1)] = 100
    # Lifetime of user tokens from /v2/auth/generate_token.
    user_token_ttl_s: int = 48 * 3600
    # How long a permission provider has to answer. Other services' access checks wait 2 s for
    # identity's answer, so this stays below that; a late provider means no access.
    permission_provider_timeout_s: float = 1.5
    # How long a permission provider's decision is reused (less when it expires sooner).
    permission_provider_cache_ttl_s: float = 5.0
    # How long a failed call to a permission provider is remembered as no access.
    permission_provider_failure_cache_ttl_s: Annotated[float, Meta(ge=0)] = 2.0
    # Calls to one key's provider in flight at once (per process); a check beyond them waits up
    # to the queue wait for one, then gets no access. All keys share the access-check handler's
    # slots, so a slow provider holds no more of them than this.
    permission_provider_concurrency: Annotated[int, Meta(ge=1)] = 4
    permission_provider_queue_wait_s: Annotated[float, Meta(ge=0)] = 0.1
    # After this many failed calls in a row a provider is not called for the cool-down (its
    # checks get no access at once); then one check probes it.
    permission_provider_breaker_failures: Annotated[int, Meta(ge=1)] = 5
    permission_provider_breaker_cooldown_s: Annotated[float, Meta(ge=0)] = 10.0
    # Services that hold document data and take part in every document migration.
    migration_participants: list[str] = msgspec.field(
        default_factory=lambda: ["identity", "comments", "notify", "memory", "workflow"]
    )
    # Mail (login links, invitations) goes out through this SMTP relay (redline.mail.relay:
    # smtp://user:password@host:587, smtps://..., smtp://host:25?security=none); unset: the
    # calls that send mail answer FAILED_PRECONDITION naming REDLINE_SMTP_URL.
    smtp_url: str | None = None
    # The From address of that mail (the workspace's email config may set its display name).
    smtp_from: str = "redline@localhost"
    smtp_timeout_s: float = 30.0
    # The address people reach this service at: links in mail point here (default
    # http://<host>:<port>).
    public_url: str | None = None
    # How long a login link and an invitation link work (each works once).
    login_link_ttl_s: int = 3600
    invitation_ttl_s: int = 7 * 24 * 3600
    # Hosts a login link's continueUrl may lead to.
    login_continue_hosts: list[str] = msgspec.field(default_factory=lambda: ["localhost"])
    # Services that hold personal data: each answers every export and erases for every job.
    personal_data_participants: list[str] = msgspec.field(
        default_factory=lambda: ["identity", "comments", "notify", "memory", "workflow"]
    )
    # A data deletion job whose services have not all reported after this long asks them again.
    personal_data_retry_s: float = 300.0
