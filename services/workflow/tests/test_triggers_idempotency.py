"""The idempotency keys of triggered dispatches: readable when the parts fit the key pattern,
hashed (the same way every time) when they do not, and never one key for two events."""

from __future__ import annotations

import re

import pytest

from redline.workflow.triggers.idempotency import trigger_key

KEY = re.compile(r"^[A-Za-z0-9:_\-.]{1,200}\Z")


def test_fitting_parts_make_a_readable_key() -> None:
    assert (
        trigger_key("ci", "deploy-review", "72d3162e-cc78") == "trig:ci:deploy-review:72d3162e-cc78"
    )
    assert trigger_key("nightly", "audit", "1894154400000") == "trig:nightly:audit:1894154400000"


@pytest.mark.parametrize(
    ("trigger_id", "source_id"),
    [
        ("ci", "delivery id with spaces"),
        ("ci", "ünïcode"),
        ("ci", "x" * 300),
        ("ci build", "42"),
        ("t" * 128, "1894154400000"),
    ],
)
def test_parts_that_do_not_fit_are_hashed_into_a_valid_key(trigger_id: str, source_id: str) -> None:
    key = trigger_key(trigger_id, "deploy-review", source_id)
    assert KEY.match(key), key
    assert key == trigger_key(trigger_id, "deploy-review", source_id)
    assert key != trigger_key(trigger_id, "deploy-review", source_id + "!")


def test_a_source_id_that_does_not_fit_keeps_the_readable_prefix() -> None:
    key = trigger_key("ci", "deploy-review", "id with spaces")
    assert key.startswith("trig:ci:deploy-review.")


def test_the_same_event_for_two_definitions_makes_two_keys() -> None:
    assert trigger_key("nightly", "audit-a", "1") != trigger_key("nightly", "audit-b", "1")


def test_a_source_id_shaped_like_a_hash_cannot_take_a_hashed_key() -> None:
    hashed = trigger_key("ci", "deploy-review", "id with spaces")
    digest = hashed.rsplit(".", 1)[1]
    # Posing as the hashed form needs the `.` where a readable key has its third colon.
    assert trigger_key("ci", "deploy-review", digest) != hashed
    assert trigger_key("ci", "deploy-review", "." + digest) != hashed
