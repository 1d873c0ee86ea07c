"""Provider presets: where each provider puts its signature and event name, and the checks."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import msgspec
import pytest
from multidict import CIMultiDict

from redline.workflow.definitions.triggers import InboundWebhook
from redline.workflow.triggers.providers import authentic, event_name, preset_for

SECRET = "s3cret-s3cret-s3cret"
NOW = 1_700_000_000
WINDOW_S = 300.0
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
    assert authentic(trigger, preset, CIMultiDict(headers), BODY, now_s=NOW, window_s=WINDOW_S)
    assert not authentic(
        trigger, preset, CIMultiDict(headers), BODY + b" ", now_s=NOW, window_s=WINDOW_S
    )
    assert not authentic(trigger, preset, CIMultiDict(), BODY, now_s=NOW, window_s=WINDOW_S)


def test_a_signature_without_its_prefix_is_refused() -> None:
    trigger = webhook(provider="github")
    headers = CIMultiDict({"x-hub-signature-256": sign("sha256")})
    assert not authentic(
        trigger, preset_for(trigger, ["redline"]), headers, BODY, now_s=NOW, window_s=WINDOW_S
    )


def test_a_signature_that_is_not_text_is_refused_without_an_error() -> None:
    trigger = webhook()
    headers = CIMultiDict({"x-redline-signature": "sha256=\udcff"})
    assert not authentic(
        trigger, preset_for(trigger, ["redline"]), headers, BODY, now_s=NOW, window_s=WINDOW_S
    )


def test_bearer_compares_the_whole_secret() -> None:
    trigger = webhook(authMode="bearer")
    preset = preset_for(trigger, ["redline"])
    assert authentic(
        trigger,
        preset,
        CIMultiDict({"authorization": f"Bearer {SECRET}"}),
        BODY,
        now_s=NOW,
        window_s=WINDOW_S,
    )
    assert authentic(
        trigger,
        preset,
        CIMultiDict({"authorization": f"bearer {SECRET}"}),
        BODY,
        now_s=NOW,
        window_s=WINDOW_S,
    )
    for presented in (f"Bearer {SECRET}x", f"Basic {SECRET}", SECRET, "Bearer "):
        assert not authentic(
            trigger,
            preset,
            CIMultiDict({"authorization": presented}),
            BODY,
            now_s=NOW,
            window_s=WINDOW_S,
        )


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
    assert not authentic(
        trigger, preset_for(trigger, ["redline"]), headers, respaced, now_s=NOW, window_s=WINDOW_S
    )


# Timestamped schemes: the delivery's time is signed with the body, and must be recent.

STANDARD_KEY = b"standard-webhooks-key-bytes-0123"
STANDARD_SECRET = "whsec_" + base64.b64encode(STANDARD_KEY).decode()


def stripe_header(t: int | str, body: bytes = BODY, secret: str = SECRET) -> str:
    signed = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={signed}"


def standard_headers(t: int | str, body: bytes = BODY, msg_id: str = "msg_1") -> dict[str, str]:
    content = f"{msg_id}.{t}.".encode() + body
    signed = base64.b64encode(hmac.new(STANDARD_KEY, content, hashlib.sha256).digest()).decode()
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(t),
        "webhook-signature": f"v1,bm90LXRoaXMtb25l v1,{signed}",
    }


def check(trigger: InboundWebhook, headers: dict[str, str], body: bytes = BODY) -> Any:
    preset = preset_for(trigger, ["redline"])
    return authentic(trigger, preset, CIMultiDict(headers), body, now_s=NOW, window_s=WINDOW_S)


@pytest.mark.parametrize("skew", [0, -300, 300, -120, 45])
def test_a_stripe_signature_within_the_window_is_accepted(skew: int) -> None:
    trigger = webhook(provider="stripe")
    assert check(trigger, {"Stripe-Signature": stripe_header(NOW + skew)})


@pytest.mark.parametrize("skew", [-301, 301, -86_400])
def test_a_stripe_signature_outside_the_window_is_refused(skew: int) -> None:
    trigger = webhook(provider="stripe")
    assert not check(trigger, {"Stripe-Signature": stripe_header(NOW + skew)})


def test_a_stripe_timestamp_cannot_be_moved_to_bring_an_old_signature_back() -> None:
    trigger = webhook(provider="stripe")
    old = stripe_header(NOW - 3600)
    signature = old.partition(",")[2]
    assert not check(trigger, {"Stripe-Signature": f"t={NOW},{signature}"})
    # Two timestamps, one fresh and one signed: which one was signed is not for us to guess.
    assert not check(trigger, {"Stripe-Signature": f"t={NOW},{old}"})


def test_the_window_is_the_one_configured() -> None:
    trigger = webhook(provider="stripe")
    preset = preset_for(trigger, ["redline"])
    headers = CIMultiDict({"stripe-signature": stripe_header(NOW - 90)})
    assert authentic(trigger, preset, headers, BODY, now_s=NOW, window_s=120)
    assert not authentic(trigger, preset, headers, BODY, now_s=NOW, window_s=60)


def test_a_standard_webhooks_signature_is_checked_with_its_id_and_time() -> None:
    trigger = webhook(provider="standard-webhooks", secret=STANDARD_SECRET)
    headers = standard_headers(NOW - 10)
    assert check(trigger, headers)
    assert not check(trigger, headers, BODY + b" ")
    assert not check(trigger, {**headers, "webhook-id": "msg_2"})
    assert not check(trigger, {**headers, "webhook-timestamp": str(NOW - 9)})
    assert not check(trigger, standard_headers(NOW - 301))
    assert not check(trigger, standard_headers(NOW + 301))


def test_the_digest_is_the_same_for_a_copy_and_differs_for_a_new_delivery() -> None:
    stripe = webhook(provider="stripe")
    first = check(stripe, {"Stripe-Signature": stripe_header(NOW)})
    copy = check(stripe, {"Stripe-Signature": stripe_header(NOW)})
    later = check(stripe, {"Stripe-Signature": stripe_header(NOW + 1)})
    assert first.digest == copy.digest != later.digest
    body_only = webhook()
    signed = {"x-redline-signature": "sha256=" + sign("sha256")}
    upper = {"x-redline-signature": "sha256=" + sign("sha256").upper()}
    assert check(body_only, signed).digest == check(body_only, upper).digest
    assert check(webhook(authMode="bearer"), {"authorization": f"Bearer {SECRET}"}).digest is None


@pytest.mark.parametrize(
    "value",
    [
        "",
        "t=",
        "v1=abc",
        f"t={NOW}",
        f"t=+{NOW},v1=00",
        "t=\uff11\uff12\uff13,v1=00",
        f"t={NOW}.5,v1=00",
        "t=99999999999999999999999,v1=00",
        "=,=,=,,,",
        "t=1,v1=\u00e9\udcff",
        ",".join(["v1=00"] * 10_000),
    ],
)
def test_malformed_stripe_headers_are_refused_without_raising(value: str) -> None:
    assert not check(webhook(provider="stripe"), {"Stripe-Signature": value})


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"webhook-signature": "v1,abc"},
        {"webhook-id": "m", "webhook-timestamp": "abc", "webhook-signature": "v1,abc"},
        {"webhook-id": "m", "webhook-timestamp": str(NOW), "webhook-signature": "v1"},
        {"webhook-id": "\udcff", "webhook-timestamp": str(NOW), "webhook-signature": "v1,\u00e9"},
    ],
)
def test_malformed_standard_webhooks_headers_are_refused_without_raising(
    headers: dict[str, str],
) -> None:
    assert not check(webhook(provider="standard-webhooks", secret=STANDARD_SECRET), headers)


def test_a_standard_webhooks_secret_that_is_not_base64_verifies_nothing() -> None:
    trigger = webhook(provider="standard-webhooks", secret="whsec_not*base64*at*all")
    assert not check(trigger, standard_headers(NOW))
