"""One middleware renders every failure as the failure envelope: API errors, aiohttp's own HTTP
errors (unknown path, wrong method, oversized body) and unexpected exceptions, which are logged and
shown to the client as INTERNAL without internals.

It also gives each request its id (the caller's `X-Request-ID`, else a new one), returned in the
response and set as the request id of `redline.proto.request_context` while the request is served:
every log line and event of the request carries it.
"""

from __future__ import annotations

import itertools
import logging
import re
import secrets
from typing import TypeVar

from aiohttp import web
from aiohttp.typedefs import Handler

from redline.envelope import codec
from redline.envelope.errors import (
    ERRORS_BY_CODE,
    ApiError,
    Internal,
    InvalidArgument,
    NotFound,
    Unknown,
)
from redline.proto import request_context

log = logging.getLogger("redline.envelope")

REQUEST_ID = "x-request-id"

# Request ids need to be unique, not secret: a per-process random prefix and a counter are
# cheaper on every request than fresh randomness.
_ID_PREFIX = secrets.token_hex(4)
_id_counter = itertools.count(1)


def _next_request_id() -> str:
    return f"{_ID_PREFIX}-{next(_id_counter):x}"


# The caller's id is taken when it is printable ASCII of a sane length: it goes into log lines,
# an outbox column and NATS headers, where control characters, bytes that are not UTF-8 (aiohttp
# keeps them as surrogates) or a megabyte of id would break or bloat them.
_CALLER_ID = re.compile(r"[\x21-\x7e]{1,128}")


def _request_id(request: web.Request) -> str:
    given = request.headers.get(REQUEST_ID)
    if given is not None and _CALLER_ID.fullmatch(given):
        return given
    return _next_request_id()


_BY_HTTP_STATUS: dict[int, type[ApiError]] = {}
for _cls in ERRORS_BY_CODE.values():
    _BY_HTTP_STATUS.setdefault(_cls.http_status, _cls)


def _render(error: ApiError, status: int, request_id: str, extra: dict[str, str]) -> web.Response:
    headers = {REQUEST_ID: request_id, **error.headers, **extra}
    response = web.Response(
        status=status,
        body=codec.error_body(error),
        content_type="application/json",
        headers=headers,
    )
    if headers.get("Connection") == "close":
        # The header alone tells the client; this makes the server end the connection too.
        response.force_close()
    return response


def _from_http_exception(exc: web.HTTPException) -> tuple[ApiError, dict[str, str]]:
    extra: dict[str, str] = {}
    if exc.status == 404:
        return NotFound("No endpoint at this path."), extra
    if exc.status == 405:
        allow = exc.headers.get("Allow")
        if allow:
            extra["Allow"] = allow
        error: ApiError = InvalidArgument(f"Method not allowed; use {allow or 'POST'}.")
        return error, extra
    if exc.status == 413:
        return InvalidArgument("Request body is too large."), extra
    cls = _BY_HTTP_STATUS.get(exc.status, Unknown if exc.status >= 500 else InvalidArgument)
    return cls(exc.reason or "Request failed."), extra


@web.middleware
async def envelope_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    request_id = _request_id(request)
    # The workspace is set once the caller is authenticated (see endpoint.py); the block puts
    # both back when the request is done.
    with request_context.serving(request_id):
        return await _respond(request, handler, request_id)


async def _respond(request: web.Request, handler: Handler, request_id: str) -> web.StreamResponse:
    try:
        response = await handler(request)
    except ApiError as exc:
        return end_unread_body(request, _render(exc, exc.http_status, request_id, {}))
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        error, extra = _from_http_exception(exc)
        return end_unread_body(request, _render(error, exc.status, request_id, extra))
    except Exception:
        # The request id comes with the log line from the context.
        log.exception("unhandled error on %s", request.path, extra={"path": request.path})
        return end_unread_body(request, _render(Internal("Internal error."), 500, request_id, {}))
    response.headers[REQUEST_ID] = request_id
    return response


R = TypeVar("R", bound=web.StreamResponse)


def end_unread_body(request: web.Request, response: R) -> R:
    """A request refused before its body was read whole (bad credentials, a forged link, a body
    declared too large, one that does not decode): the rest is not read either, and the
    connection ends with the answer. Else the server would read and drop whatever the caller
    still has in flight, megabytes of it for each of a stranger's refused requests."""
    if request.body_exists and not request.content.is_eof():
        request.content.feed_eof()
        response.headers["Connection"] = "close"
        response.force_close()
    return response
