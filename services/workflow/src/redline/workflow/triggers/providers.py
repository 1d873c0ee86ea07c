"""How each inbound-webhook provider signs and names its deliveries, and the checks that follow
from it: the signature (or bearer secret) and the event name the `allowedEvents` gate reads.

- velt: `x-<brand>-signature`, HMAC-SHA256, prefix `sha256=`; event name from the body's `type`.
- github: `x-hub-signature-256`, HMAC-SHA256, prefix `sha256=`; event name from `x-github-event`;
  the delivery id in `x-github-delivery`.
- vercel: `x-vercel-signature`, HMAC-SHA1, no prefix; event name from
  `x-vercel-deployment-event`, else the body's `type`.
- custom: `signatureHeader`, `signatureAlgorithm`, `signaturePrefix`; event name from
  `eventNameHeader`.

The `velt` provider is the native contract; its header takes every brand word the service
accepts, as the other credential headers do.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from msgspec import UnsetType

from redline.envelope.constant_time import same_secret
from redline.workflow.definitions.triggers import InboundWebhook

Algorithm = Literal["sha1", "sha256"]


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
    if provider == "github":
        return Preset(
            signature_headers=("x-hub-signature-256",),
            algorithm="sha256",
            prefix="sha256=",
            event_headers=("x-github-event",),
            event_from_body=False,
            delivery_id_header="x-github-delivery",
        )
    if provider == "vercel":
        return Preset(
            signature_headers=("x-vercel-signature",),
            algorithm="sha1",
            prefix="",
            event_headers=("x-vercel-deployment-event",),
            event_from_body=True,
        )
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
    webhook: InboundWebhook, preset: Preset, headers: Mapping[str, str], body: bytes
) -> bool:
    """Whether the delivery carries the trigger's secret: as `Authorization: Bearer <secret>`,
    or as the provider's HMAC of the raw body. Compared in constant time."""
    secret = webhook.secret.encode()
    if webhook.authMode == "bearer":
        scheme, _, presented = headers.get("authorization", "").strip().partition(" ")
        return scheme.lower() == "bearer" and same_secret(presented.strip(), secret)
    signature = _first(headers, preset.signature_headers)
    if signature is None or not signature.startswith(preset.prefix):
        return False
    expected = hmac.new(secret, body, preset.algorithm).hexdigest().encode()
    # Hex digits in either case are the same signature.
    return same_secret(signature[len(preset.prefix) :].strip().lower(), expected)


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
