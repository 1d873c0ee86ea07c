"""Triggers: one mechanism each, unique ids, a schedule that can fire, an inbound webhook whose
provider and signature settings fit together. App triggers pass here; whether an app platform
is connected is the service's question (`needs_app_platform`)."""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Iterator

from croniter import croniter
from msgspec import UnsetType

from redline.workflow.definitions.linter.subject import Problem, Subject, problem
from redline.workflow.definitions.models import InboundWebhook, Schedule


def check(subject: Subject) -> Iterator[Problem]:
    seen: set[str] = set()
    for index, trigger in enumerate(subject.body.trigger_list):
        path = f"data.triggers[{index}]"
        if trigger.triggerId in seen:
            yield problem(
                "trigger-duplicate-id",
                f"{path}.triggerId",
                f'triggerId "{trigger.triggerId}" is used by an earlier trigger',
            )
        seen.add(trigger.triggerId)
        mechanisms = trigger.mechanisms
        if len(mechanisms) > 1:
            yield problem(
                "trigger-mechanism-exclusive",
                path,
                "a trigger declares one of inboundWebhook, schedule or appTrigger, not "
                + " and ".join(mechanisms),
            )
        elif not mechanisms:
            yield problem(
                "trigger-mechanism-required",
                path,
                "a trigger declares one of inboundWebhook, schedule or appTrigger",
            )
        if not isinstance(trigger.schedule, UnsetType):
            yield from _schedule(trigger.schedule, f"{path}.schedule")
        if not isinstance(trigger.inboundWebhook, UnsetType):
            yield from _inbound(trigger.inboundWebhook, f"{path}.inboundWebhook")


def _schedule(schedule: Schedule, path: str) -> Iterator[Problem]:
    if not is_cron(schedule.cron):
        yield problem(
            "schedule-cron-invalid",
            f"{path}.cron",
            "schedule.cron must be a valid 5-field cron expression",
        )
    if schedule.timezone not in _zones():
        yield problem(
            "schedule-timezone-invalid",
            f"{path}.timezone",
            "schedule.timezone must be a valid IANA timezone name (e.g. America/Los_Angeles)",
        )


def is_cron(expression: str) -> bool:
    """Five fields (croniter would also take a sixth, for seconds, and `@daily` shorthands)."""
    return len(expression.split()) == 5 and bool(croniter.is_valid(expression))


@functools.cache
def _zones() -> frozenset[str]:
    # The installed names: asking ZoneInfo directly would also take any file on its search path.
    return frozenset(zoneinfo.available_timezones())


def _inbound(webhook: InboundWebhook, path: str) -> Iterator[Problem]:
    provider = webhook.effective_provider
    if provider != "velt" and webhook.authMode == "bearer":
        yield problem(
            "inbound-webhook-provider-requires-hmac",
            f"{path}.authMode",
            'inboundWebhook provider="github"/"vercel"/"custom" requires authMode="hmac"',
        )
    if (
        provider == "custom"
        and webhook.authMode == "hmac"
        and (
            isinstance(webhook.signatureHeader, UnsetType)
            or isinstance(webhook.signatureAlgorithm, UnsetType)
        )
    ):
        yield problem(
            "inbound-webhook-custom-requires-signature",
            path,
            'inboundWebhook with provider="custom" and authMode="hmac" requires '
            "signatureHeader and signatureAlgorithm",
        )
