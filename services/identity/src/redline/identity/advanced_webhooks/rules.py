"""The pure rules of advanced webhook endpoints: the event types an endpoint may filter on, what
a target URL must be, new ids and signing secrets, and when the feature may be used."""

from __future__ import annotations

import base64
import datetime as dt
import secrets
import string
from collections.abc import Mapping, Sequence
from typing import Any

from redline.envelope.errors import FailedPrecondition, InvalidArgument, Issue
from redline.identity.key_settings.rules import (
    CRDT_TRIGGERS,
    HUDDLE_TRIGGERS,
    RECORDER_TRIGGERS,
    STANDARD_COMMENT_TRIGGERS,
    SUGGESTION_TRIGGERS,
    url_problem,
)
from redline.webhooks import AddressGuard

# The event types of the hosted product's webhooks (the trigger names of its webhook settings),
# and the two annotation events only Redline names. Redline's comments service emits the comment
# ones; the huddle, crdt and recorder ones are accepted so that settings made for the hosted
# product keep working, and never occur.
EVENT_TYPES = frozenset(
    STANDARD_COMMENT_TRIGGERS
    + SUGGESTION_TRIGGERS
    + ("comment_annotation.update", "comment_annotation.delete")
    + HUDDLE_TRIGGERS
    + CRDT_TRIGGERS
    + RECORDER_TRIGGERS
)
# Endpoints an API key may hold.
MAX_ENDPOINTS = 100
ID_PREFIX = "ep_"
_ID_ALPHABET = string.ascii_letters + string.digits
_SECRET_BYTES = 24

ENABLE_HINT = 'POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }'


def new_endpoint_id() -> str:
    return ID_PREFIX + "".join(secrets.choice(_ID_ALPHABET) for _ in range(27))


def new_secret() -> str:
    """A Standard Webhooks signing secret: `whsec_` and the base64 of 24 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(_SECRET_BYTES)).decode("ascii")


def iso_time(value: dt.datetime) -> str:
    """`2026-06-01T10:15:30.000Z`: UTC with milliseconds, as the reference shows times."""
    utc = value.astimezone(dt.UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def require_enabled(config: Mapping[str, Any] | None) -> None:
    """Endpoints are managed only while advanced webhooks are on for the API key."""
    if config is None:
        raise FailedPrecondition(
            f"Advanced webhooks are not configured for this workspace. Enable them first via "
            f"{ENABLE_HINT}."
        )
    if config.get("isEnabled") is not True:
        raise FailedPrecondition(
            f"Advanced webhooks are disabled for this workspace. Enable them via {ENABLE_HINT}."
        )


def endpoint_issues(fields: Mapping[str, Any], guard: AddressGuard) -> list[Issue]:
    """What is wrong with the endpoint fields sent (create or update), each naming its path."""
    issues: list[Issue] = []
    url = fields.get("url")
    if isinstance(url, str):
        problem = "must not be empty" if url == "" else url_problem(url, guard)
        if problem:
            issues.append(
                Issue(
                    code="invalid_value",
                    path="data.url",
                    message=f"url must be a valid http(s) URL: it {problem}.",
                )
            )
    types = fields.get("filterTypes")
    if isinstance(types, list):
        issues += [
            Issue(
                code="invalid_value",
                path=f"data.filterTypes[{index}]",
                message=f"{name!r} is not an event type; known: {', '.join(sorted(EVENT_TYPES))}",
            )
            for index, name in enumerate(types)
            if name not in EVENT_TYPES
        ]
    uid = fields.get("uid")
    if isinstance(uid, str) and uid.startswith(ID_PREFIX):
        issues.append(
            Issue(
                code="invalid_value",
                path="data.uid",
                message=f"a uid must not start with {ID_PREFIX!r}, which marks endpoint ids",
            )
        )
    return issues


def check_endpoint(fields: Mapping[str, Any], guard: AddressGuard) -> None:
    issues = endpoint_issues(fields, guard)
    if issues:
        raise InvalidArgument.from_issues(issues)


def distinct(values: Sequence[str] | None) -> list[str] | None:
    """A list without repeats, in first-seen order (None stays None)."""
    return None if values is None else list(dict.fromkeys(values))
