"""How each inbound-webhook provider signs and names its deliveries, and the checks that follow
from it: the signature (or bearer secret) and the event name the `allowedEvents` gate reads.

- velt: `x-<brand>-signature`, HMAC-SHA256, prefix `sha256=`; event name from the body's `type`.
- github: `x-hub-signature-256`, HMAC-SHA256, prefix `sha256=`; event name from `x-github-event`;
  the delivery id in `x-github-delivery`.
- vercel: `x-vercel-signature`, HMAC-SHA1, no prefix; event name from
  `x-vercel-deployment-event`, else the body's `type`.
- stripe: `stripe-signature` (`t=…,v1=…`, timestamped); event name and delivery id from the
  body's `type` and `id`.
- standard-webhooks: `webhook-signature` over `webhook-id` and `webhook-timestamp`; event name
  from the body's `type`, delivery id from `webhook-id`.
- custom: `signatureHeader`, `signatureAlgorithm`, `signaturePrefix`; event name from
  `eventNameHeader`.

The signature schemes themselves, and the replay window of the timestamped ones, are in
`signatures`.

The `velt` provider is the native contract; its header takes every brand word the service
accepts, as the other credential headers do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from msgspec import UnsetType

from redline.envelope.constant_time import same_secret
from redline.workflow.definitions.triggers import InboundWebhook
from redline.workflow.triggers.signatures import Algorithm, Scheme, Signed, Verified, verify


@dataclass(frozen=True)
class Preset:
    signature_headers: tuple[str, ...]
    algorithm: Algorithm
    prefix: str
    # Headers to read the event name from, in order, then whether the body's `type` is next.
    event_headers: tuple[str, ...]
    event_from_body: bool
    # The provider's own delivery id, used when the trigger names no other source of one.
    delivery_id_header: str | None = None
    delivery_id_body_path: str | None = None
    scheme: Scheme = "body"


# The providers whose signing is fixed; velt's header follows the brands, a custom one the
# trigger's own settings.
_PRESETS = {
    "github": Preset(
        signature_headers=("x-hub-signature-256",),
        algorithm="sha256",
        prefix="sha256=",
        event_headers=("x-github-event",),
        event_from_body=False,
        delivery_id_header="x-github-delivery",
    ),
    "vercel": Preset(
        signature_headers=("x-vercel-signature",),
        algorithm="sha1",
        prefix="",
        event_headers=("x-vercel-deployment-event",),
        event_from_body=True,
    ),
    "stripe": Preset(
        signature_headers=("stripe-signature",),
        algorithm="sha256",
        prefix="",
        event_headers=(),
        event_from_body=True,
        delivery_id_body_path="id",
        scheme="stripe",
    ),
    "standard-webhooks": Preset(
        signature_headers=("webhook-signature",),
        algorithm="sha256",
        prefix="",
        event_headers=(),
        event_from_body=True,
        delivery_id_header="webhook-id",
        scheme="standard-webhooks",
    ),
}


def preset_for(webhook: InboundWebhook, brands: Sequence[str]) -> Preset:
    provider = webhook.effective_provider
    if provider == "velt":
        return Preset(
            signature_headers=tuple(f"x-{brand}-signature" for brand in brands),
            algorithm="sha256",
            prefix="sha256=",
            event_headers=(),
            event_from_body=True,
        )
    preset = _PRESETS.get(provider)
    if preset is not None:
        return preset
    # The linter requires the header and the algorithm of a custom hmac trigger; a bearer one
    # never reads them.
    algorithm = webhook.signatureAlgorithm
    return Preset(
        signature_headers=_given(webhook.signatureHeader),
        algorithm="sha256" if isinstance(algorithm, UnsetType) else algorithm,
        prefix="" if isinstance(webhook.signaturePrefix, UnsetType) else webhook.signaturePrefix,
        event_headers=_given(webhook.eventNameHeader),
        event_from_body=False,
    )


def _given(header: str | UnsetType) -> tuple[str, ...]:
    return () if isinstance(header, UnsetType) else (header.lower(),)


def authentic(
    webhook: InboundWebhook,
    preset: Preset,
    headers: Mapping[str, str],
    body: bytes,
    *,
    now_s: float,
    window_s: float,
) -> Verified | None:
    """Whether the delivery carries the trigger's secret: as `Authorization: Bearer <secret>`,
    or as the provider's signature (a timestamped one within `window_s` of `now_s`). Compared
    in constant time."""
    if webhook.authMode == "bearer":
        scheme, _, presented = headers.get("authorization", "").strip().partition(" ")
        if scheme.lower() == "bearer" and same_secret(presented.strip(), webhook.secret):
            return Verified(digest=None)
        return None
    signed = Signed(
        scheme=preset.scheme,
        algorithm=preset.algorithm,
        prefix=preset.prefix,
        signature=_first(headers, preset.signature_headers),
        headers=headers,
    )
    return verify(signed, webhook.secret, body, now_s=now_s, window_s=window_s)


def event_name(preset: Preset, headers: Mapping[str, str], body: Mapping[str, Any]) -> str | None:
    name = _first(headers, preset.event_headers)
    if name is None and preset.event_from_body and isinstance(body.get("type"), str):
        name = body["type"]
    return name or None


def _first(headers: Mapping[str, str], names: Sequence[str]) -> str | None:
    for name in names:
        value = headers.get(name)
        if value is not None:
            return value
    return None
