"""Settings: a msgspec Struct per service, filled from `REDLINE_<FIELD>` environment variables.

Built once in `__main__` (or by the all-in-one launcher) and passed down; nothing reads the
environment anywhere else.
"""

from __future__ import annotations

import base64
import os
import typing
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

import msgspec
from msgspec import Meta

S = TypeVar("S", bound=msgspec.Struct)

PREFIX = "REDLINE_"


def own_nats_url_variable(service: str) -> str:
    """The variable of `redline up --split` naming the NATS URL of `service` alone (its user and
    password in it, as its deployment gives it); without it the service gets `REDLINE_NATS_URL`."""
    return f"{PREFIX}{service.upper()}_NATS_URL"


class RuntimeSettings(msgspec.Struct, kw_only=True, frozen=True):
    """What every service process needs. Service settings subclass this."""

    database_url: str | None = None
    nats_url: str | None = None
    qdrant_url: str | None = None
    # Copies of the EVENTS stream JetStream keeps: 1 on one server, 3 on a 3-node cluster.
    nats_stream_replicas: int = 1
    host: str = "127.0.0.1"
    port: int = 8080
    data_dir: str = ".redline"
    # Base64 of ≥32 random bytes; signs page tokens and seals stored secrets. Required in
    # production; the all-in-one launcher keeps one in the data dir.
    secret_key: str | None = None
    header_brands: list[str] = msgspec.field(default_factory=lambda: ["redline"])
    admin_token: str | None = None
    open_signup: bool = False
    rate_limit_general: int = 600
    rate_limit_search: int = 120
    rate_limit_ingest: int = 30
    rate_limit_signup: int = 60
    rate_limit_auth_failures: int = 120
    # How often each process folds its rate limit counts into the ones every replica shares (in
    # PostgreSQL) and reads back the totals; 0 counts in each process alone.
    rate_limit_sync_s: float = 1.0
    # Reverse proxies (IPs or CIDRs) whose X-Forwarded-For is believed for per-address limits.
    trusted_proxies: list[str] = msgspec.field(default_factory=list)
    # How many of those proxies stand in front of the service, each appending to X-Forwarded-For
    # (the gateway alone: 1; a CDN or load balancer that appends too: 2). The client address is
    # read that many entries from the right; entries further left are the client's own words.
    trusted_proxy_hops: int = 1
    # Hosts or CIDRs let past the webhook address guard (on-prem receivers, tests); only these may
    # be plain http. Identity checks webhook URLs with it when they are saved, notify when sending.
    webhook_allow: list[str] = msgspec.field(default_factory=list)
    # Extra CA certificates (PEM file) trusted for the TLS of every outbound call to a customer's
    # server (webhooks, workflow webhook steps, the agent runner), beside the system store.
    webhook_ca_file: str | None = None
    auth_cache_ttl_s: float = 30.0
    # The most bytes of rows one page of a list carries (rows of up to a MiB each would make a
    # page of a thousand a gigabyte): the page ends early, after at least one row, and its
    # nextPageToken goes on from there.
    page_byte_budget: Annotated[int, Meta(ge=1)] = 4 * 1024 * 1024
    # Recipients one workspace may send mail to through the SMTP relay, counted by each service
    # that sends mail (invitations, notification mail, workflow email steps): per clock hour,
    # and per 24 hours.
    mail_recipients_per_hour: Annotated[int, Meta(ge=1)] = 500
    mail_recipients_per_day: Annotated[int, Meta(ge=1)] = 2000
    db_pool_size: int = 10
    log_level: str = "INFO"
    # "json": one JSON object per line, for a log pipeline; "text": one line for a person to read.
    log_format: str = "json"
    # On SIGTERM the server stops taking connections at once, then gives requests in flight this
    # long before it drains consumers and closes pools: with the rest of shutdown it must fit in
    # the pod's grace period (30 s by default).
    shutdown_timeout_s: float = 15.0
    # `uvloop` (where it is installed) or `asyncio`: the event loop the server runs on.
    event_loop: str = "uvloop"

    def secret_key_bytes(self) -> bytes:
        if not self.secret_key:
            raise SettingsError("REDLINE_SECRET_KEY is not set")
        try:
            key = base64.b64decode(self.secret_key, validate=True)
        except ValueError:
            raise SettingsError("REDLINE_SECRET_KEY must be base64") from None
        if len(key) < 32:
            raise SettingsError("REDLINE_SECRET_KEY must hold at least 32 bytes")
        return key


class SettingsError(ValueError):
    pass


def _is_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is list:
        return True
    return any(typing.get_origin(arg) is list for arg in typing.get_args(annotation))


def load_settings(cls: type[S], environ: Mapping[str, str] | None = None, **overrides: Any) -> S:
    """Build `cls` from `REDLINE_*` variables; `overrides` win. Errors name the variable."""
    env = os.environ if environ is None else environ
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for name in cls.__struct_fields__:
        raw = env.get(PREFIX + name.upper())
        if raw is None:
            continue
        values[name] = (
            [p.strip() for p in raw.split(",") if p.strip()] if _is_list(hints[name]) else raw
        )
    values.update(overrides)
    try:
        return msgspec.convert(values, cls, strict=False)
    except msgspec.ValidationError as exc:
        text = str(exc)
        marker = "`$."
        if marker in text:
            field = text.split(marker, 1)[1].split("`", 1)[0]
            raise SettingsError(f"{PREFIX}{field.upper()}: {text.split(' - at ')[0]}") from None
        raise SettingsError(text) from None
