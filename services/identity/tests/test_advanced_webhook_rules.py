"""The pure rules of advanced webhook endpoints: event types, target URLs, ids, secrets, times."""

from __future__ import annotations

import base64
import datetime as dt
import re

import pytest

from redline.envelope.errors import FailedPrecondition, InvalidArgument
from redline.identity.advanced_webhooks.rules import (
    EVENT_TYPES,
    check_endpoint,
    endpoint_issues,
    iso_time,
    new_endpoint_id,
    new_secret,
    require_enabled,
)
from redline.webhooks import AddressGuard

GUARD = AddressGuard([])


def test_every_comment_event_type_can_be_filtered_on() -> None:
    comment_types = {
        "comment_annotation.add",
        "comment_annotation.update",
        "comment_annotation.delete",
        "comment_annotation.status_change",
        "comment_annotation.assign",
        "comment_annotation.priority_change",
        "comment_annotation.suggestion_accept",
        "comment_annotation.suggestion_reject",
        "comment.add",
        "comment.update",
        "comment.delete",
        "comment.reaction_add",
        "comment.reaction_delete",
    }
    assert comment_types <= EVENT_TYPES


def test_secrets_are_whsec_and_24_random_bytes() -> None:
    first, second = new_secret(), new_secret()

    assert first != second
    assert len(base64.b64decode(first.removeprefix("whsec_"), validate=True)) == 24
    assert re.fullmatch(r"ep_[A-Za-z0-9]{27}", new_endpoint_id())


def test_times_are_utc_with_milliseconds() -> None:
    at = dt.datetime(2026, 6, 1, 12, 15, 30, 123_456, tzinfo=dt.timezone(dt.timedelta(hours=2)))

    assert iso_time(at) == "2026-06-01T10:15:30.123Z"


@pytest.mark.parametrize(
    ("fields", "paths"),
    [
        ({"url": "https://hooks.example.com/x", "filterTypes": ["comment.add"]}, []),
        ({"url": "https://hooks.example.com/x", "uid": "ep_1"}, ["data.uid"]),
        ({"url": "https://user:pw@hooks.example.com/"}, ["data.url"]),
        ({"url": "https://169.254.169.254/latest"}, ["data.url"]),
        ({"url": ""}, ["data.url"]),
        (
            {"filterTypes": ["comment.add", "comment.added", "huddle.created"]},
            ["data.filterTypes[1]"],
        ),
    ],
)
def test_endpoint_fields_are_checked_each_at_its_path(
    fields: dict[str, object], paths: list[str]
) -> None:
    assert [issue.path for issue in endpoint_issues(fields, GUARD)] == paths


def test_a_bad_field_is_invalid_argument() -> None:
    with pytest.raises(InvalidArgument):
        check_endpoint({"url": "ftp://hooks.example.com/"}, GUARD)


def test_endpoints_need_advanced_webhooks_on() -> None:
    with pytest.raises(FailedPrecondition, match="not configured"):
        require_enabled(None)
    with pytest.raises(FailedPrecondition, match="disabled"):
        require_enabled({"isEnabled": False})
    require_enabled({"isEnabled": True})
