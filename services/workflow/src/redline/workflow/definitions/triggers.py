"""Triggers: what starts a run without a dispatch call (an inbound webhook, a schedule, or an
installed app). One mechanism per trigger; the linter enforces it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from redline.envelope import Request
from redline.workflow.definitions.nodes import HeaderName

EventName = Annotated[str, Meta(min_length=1, max_length=128)]
Secret = Annotated[str, Meta(min_length=16, max_length=512)]
AllowedEvents = Annotated[list[EventName], Meta(min_length=1, max_length=50)]
Filter = Annotated[str, Meta(min_length=1, max_length=256)]
# `stripe` and `standard-webhooks` sign a timestamp with the body, so their deliveries can be
# refused once they are older than the replay window.
Provider = Literal["velt", "github", "vercel", "stripe", "standard-webhooks", "custom"]


class InboundWebhook(Request):
    authMode: Literal["hmac", "bearer"]
    secret: Secret
    provider: Provider | UnsetType = UNSET
    signatureHeader: HeaderName | UnsetType = UNSET
    signatureAlgorithm: Literal["sha1", "sha256"] | UnsetType = UNSET
    signaturePrefix: Annotated[str, Meta(max_length=64)] | UnsetType = UNSET
    allowedEvents: AllowedEvents | UnsetType = UNSET
    eventNameHeader: HeaderName | UnsetType = UNSET
    idempotencyHeader: HeaderName | UnsetType = UNSET
    idempotencyBodyPath: Annotated[str, Meta(min_length=1, max_length=256)] | UnsetType = UNSET
    payloadMapping: Literal["pass-through", "wrap"] | UnsetType = UNSET

    @property
    def effective_provider(self) -> Provider:
        return "velt" if isinstance(self.provider, UnsetType) else self.provider

    @property
    def effective_payload_mapping(self) -> Literal["pass-through", "wrap"]:
        return "pass-through" if isinstance(self.payloadMapping, UnsetType) else self.payloadMapping


class Schedule(Request):
    cron: Annotated[str, Meta(min_length=1, max_length=128)]
    timezone: Annotated[str, Meta(min_length=1, max_length=64)]
    enabled: bool
    payloadTemplate: dict[str, Any] | UnsetType = UNSET


class PayloadFilter(Request):
    path: Filter
    # `in` is a keyword in Python.
    values: Annotated[list[Any], Meta(max_length=100)] = msgspec.field(name="in")


class AppTrigger(Request):
    provider: Literal["github", "vercel"]
    installationRef: Annotated[str, Meta(min_length=1, max_length=256)]
    repoFilter: Annotated[list[Filter], Meta(max_length=200)] | UnsetType = UNSET
    projectFilter: Annotated[list[Filter], Meta(max_length=200)] | UnsetType = UNSET
    allowedEvents: AllowedEvents | UnsetType = UNSET
    payloadFilters: Annotated[list[PayloadFilter], Meta(max_length=20)] | UnsetType = UNSET


class Trigger(Request):
    triggerId: Annotated[str, Meta(min_length=1, max_length=128)]
    eventName: Annotated[str, Meta(max_length=128)] | UnsetType = UNSET
    filters: dict[str, Any] | UnsetType = UNSET
    inboundWebhook: InboundWebhook | UnsetType = UNSET
    schedule: Schedule | UnsetType = UNSET
    appTrigger: AppTrigger | UnsetType = UNSET

    @property
    def mechanisms(self) -> list[str]:
        """The names of the mechanisms this trigger declares (the linter wants exactly one)."""
        declared = {
            "inboundWebhook": self.inboundWebhook,
            "schedule": self.schedule,
            "appTrigger": self.appTrigger,
        }
        return [name for name, value in declared.items() if not isinstance(value, UnsetType)]
