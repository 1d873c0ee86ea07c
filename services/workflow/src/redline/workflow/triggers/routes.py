"""The inbound-webhook endpoint: POST /v2/workflow/webhook-inbound/trigger.

It takes the body as the provider sends it (raw JSON, no `data` envelope: providers cannot
reshape their bodies), the API key from `x-<brand>-api-key` or `?apiKey=` (the header wins),
and `?definitionId=` / `?triggerId=` (else from the body, as the native contract sends them).

A body over 1 MiB is refused with HTTP 413 before any of it is looked at. The answer carries
both shapes a caller may read: the hosted product's `{ok: false, code: "body-too-large"}` and,
beside it, the failure envelope's `error` (`INVALID_ARGUMENT`, the status every over-size body
gets here), rendered by the envelope's own encoder.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from aiohttp import web

from redline.envelope import GATE, HeaderNames, codec
from redline.envelope.auth import header
from redline.envelope.errors import InvalidArgument
from redline.envelope.raw_routes import Content, Parameter, RawRoute, add_raw_routes
from redline.workflow.app_keys import SETTINGS, TRIGGERS
from redline.workflow.triggers.models import InboundAnswer, InboundDelivery

INBOUND_PATH = "/v2/workflow/webhook-inbound/trigger"
MAX_INBOUND_BODY = 1 << 20
_CHUNK = 64 << 10


async def post_inbound(request: web.Request) -> web.Response:
    body = await _body_within_limit(request)
    if body is None:
        return _too_large()
    brands = request.app[SETTINGS].header_brands
    query = request.query
    delivery = InboundDelivery(
        api_key=header(request.headers, HeaderNames.for_brands(brands).api_key)
        or query.get("apiKey"),
        definition_id=query.get("definitionId") or None,
        trigger_id=query.get("triggerId") or None,
        headers=request.headers,
        body=body,
    )
    # A caller that keeps failing the provider's signature (or naming no trigger) waits, as one
    # that keeps presenting bad credentials does; a delivery that verifies is always taken.
    async with request.app[GATE].refusals_counted(request):
        answer = await request.app[TRIGGERS].receive(delivery)
    return web.Response(body=msgspec.json.encode(answer), content_type="application/json")


async def _body_within_limit(request: web.Request) -> bytes | None:
    """The body, or None once it is known to be over the limit (from Content-Length, else
    while reading a chunked body), so an oversized body is never held in full."""
    if request.content_length is not None and request.content_length > MAX_INBOUND_BODY:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_chunked(_CHUNK):
        size += len(chunk)
        if size > MAX_INBOUND_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


class TooLarge(msgspec.Struct, frozen=True):
    """The answer to an over-size body: the hosted product's shape and the failure envelope's."""

    ok: Literal[False]
    code: Literal["body-too-large"]
    error: dict[str, Any]


def _too_large() -> web.Response:
    error = InvalidArgument(f"Request body is larger than {MAX_INBOUND_BODY} bytes.")
    envelope = msgspec.json.decode(codec.error_body(error))
    answer = TooLarge(ok=False, code="body-too-large", error=envelope["error"])
    return web.Response(
        status=413, body=msgspec.json.encode(answer), content_type="application/json"
    )


def add_trigger_routes(app: web.Application, brand: str) -> None:
    route = RawRoute(
        "POST",
        INBOUND_PATH,
        post_inbound,
        "A provider's webhook, as the provider sends it, dispatching the trigger's workflow",
        answers={
            200: Content("application/json", InboundAnswer),
            413: Content("application/json", TooLarge),
        },
        parameters=(
            Parameter(f"x-{brand}-api-key", "header", required=False, description="The API key"),
            Parameter("apiKey", "query", required=False, description="The key, without a header"),
            Parameter("definitionId", "query", required=False),
            Parameter("triggerId", "query", required=False),
        ),
        body=(Content("application/json"),),
        tags=("workflow",),
    )
    add_raw_routes(app, [route])
