"""Provider presets: where each provider puts its signature and event name, and the checks."""

from __future__ import annotations

import hmac
from typing import Any

import msgspec
import pytest
from multidict import CIMultiDict

from redline.workflow.definitions.triggers import InboundWebhook
from redline.workflow.triggers.providers import authentic, event_name, preset_for

SECRET = "s3cret-s3cret-s3cret"
BODY = b'{"type":"deploy","id":"evt-1"}'


def webhook(**fields: Any) -> InboundWebhook:
    return msgspec.convert({"authMode": "hmac", "secret": SECRET, **fields}, InboundWebhook)


def sign(algorithm: str, body: bytes = BODY) -> str:
    return hmac.new(SECRET.encode(), body, algorithm).hexdigest()


@pytest.mark.parametrize(
    ("fields", "headers"),
    [
        ({}, {"x-redline-signature": "sha256=" + sign("sha256")}),
        ({}, {"x-acme-signature": "sha256=" + sign("sha256")}),
        ({"provider": "github"}, {"X-Hub-Signature-256": "sha256=" + sign("sha256")}),
        ({"provider": "vercel"}, {"x-vercel-signature": sign("sha1")}),
        (
            {
                "provider": "custom",
                "signatureHeader": "X-Signature",
                "signatureAlgorithm": "sha1",
                "signaturePrefix": "v1,",
            },
            {"x-signature": "v1," + sign("sha1").upper()},
        ),
    ],
)
def test_each_provider_signature_is_accepted_and_a_changed_body_refused(
    fields: dict[str, Any], headers: dict[str, str]
) -> None:
    trigger = webhook(**fields)
    preset = preset_for(trigger, ["redline", "acme"])
    assert authentic(trigger, preset, CIMultiDict(headers), BODY)
    assert not authentic(trigger, preset, CIMultiDict(headers), BODY + b" ")
    assert not authentic(trigger, preset, CIMultiDict(), BODY)


def test_a_signature_without_its_prefix_is_refused() -> None:
    trigger = webhook(provider="github")
    headers = CIMultiDict({"x-hub-signature-256": sign("sha256")})
    assert not authentic(trigger, preset_for(trigger, ["redline"]), headers, BODY)


def test_a_signature_that_is_not_text_is_refused_without_an_error() -> None:
    trigger = webhook()
    headers = CIMultiDict({"x-redline-signature": "sha256=\udcff"})
    assert not authentic(trigger, preset_for(trigger, ["redline"]), headers, BODY)


def test_bearer_compares_the_whole_secret() -> None:
    trigger = webhook(authMode="bearer")
    preset = preset_for(trigger, ["redline"])
    assert authentic(trigger, preset, CIMultiDict({"authorization": f"Bearer {SECRET}"}), BODY)
    assert authentic(trigger, preset, CIMultiDict({"authorization": f"bearer {SECRET}"}), BODY)
    for presented in (f"Bearer {SECRET}x", f"Basic {SECRET}", SECRET, "Bearer "):
        assert not authentic(trigger, preset, CIMultiDict({"authorization": presented}), BODY)


@pytest.mark.parametrize(
    ("fields", "headers", "body", "expected"),
    [
        ({}, {}, {"type": "deploy"}, "deploy"),
        ({}, {}, {"type": 7}, None),
        ({"provider": "github"}, {"x-github-event": "push"}, {"type": "deploy"}, "push"),
        ({"provider": "github"}, {}, {"type": "deploy"}, None),
        ({"provider": "vercel"}, {"x-vercel-deployment-event": "a"}, {"type": "b"}, "a"),
        ({"provider": "vercel"}, {}, {"type": "b"}, "b"),
        (
            {
                "provider": "custom",
                "signatureHeader": "x-sig",
                "signatureAlgorithm": "sha256",
                "eventNameHeader": "x-event",
            },
            {"x-event": "ping"},
            {"type": "b"},
            "ping",
        ),
        (
            {"provider": "custom", "signatureHeader": "x-sig", "signatureAlgorithm": "sha256"},
            {"x-event": "ping"},
            {"type": "b"},
            None,
        ),
    ],
)
def test_event_names_come_from_where_the_provider_puts_them(
    fields: dict[str, Any], headers: dict[str, str], body: dict[str, Any], expected: str | None
) -> None:
    preset = preset_for(webhook(**fields), ["redline"])
    assert event_name(preset, CIMultiDict(headers), body) == expected


def test_the_signature_is_over_the_raw_bytes() -> None:
    # The same JSON with other spacing is another body.
    trigger = webhook()
    headers = CIMultiDict({"x-redline-signature": "sha256=" + sign("sha256")})
    respaced = b'{"type": "deploy", "id": "evt-1"}'
    assert not authentic(trigger, preset_for(trigger, ["redline"]), headers, respaced)
