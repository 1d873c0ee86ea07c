"""Request/reply between services over core NATS (`rpc.<service>.<verb>`).

Replies carry either the result or an `RpcError` with the envelope's status code, which the caller
re-raises as the matching `ApiError`: a NOT_FOUND in identity is a NOT_FOUND for the client.

A request carries the caller's request id in the `Redline-Request-Id` header; the server answers
with it set (`redline.proto.request_context`), so both sides log under the same id.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import (
    ConnectionClosedError,
    ConnectionDrainingError,
    NoRespondersError,
    OutboundBufferLimitError,
)

from redline.bus.failures import infrastructure_error
from redline.envelope.errors import (
    ApiError,
    DeadlineExceeded,
    Internal,
    Unavailable,
    error_from_code,
)
from redline.proto import request_context
from redline.proto.rpc import RpcError

log = logging.getLogger("redline.bus.rpc")

Req = TypeVar("Req")
Res = TypeVar("Res")

_NULL = msgspec.Raw(b"null")


class _Reply(msgspec.Struct, omit_defaults=True):
    # Raw, not `Raw | None`: msgspec decodes that union as "null only" and rejects any result.
    ok: msgspec.Raw = _NULL
    error: RpcError | None = None


_encoder = msgspec.json.Encoder()
_reply_decoder = msgspec.json.Decoder(_Reply)


async def serve(
    nc: Client,
    subject: str,
    request_type: type[Req],
    handler: Callable[[Req], Awaitable[Any]],
    *,
    queue: str | None = None,
    max_concurrency: int = 64,
) -> Subscription:
    """Answer `subject` with `handler`; replicas share requests through the queue group.

    nats-py runs a subscription's callback for one message at a time, so each request is answered
    in a task of its own (at most `max_concurrency` at once): one slow request does not hold up
    the others.
    """
    decoder = msgspec.json.Decoder(request_type)
    slots = asyncio.Semaphore(max_concurrency)
    in_flight: set[asyncio.Task[None]] = set()

    async def answer(msg: Msg) -> None:
        headers = msg.headers or {}
        with request_context.serving(headers.get(request_context.REQUEST_ID_HEADER)):
            try:
                reply = await _answer(subject, decoder, handler, msg.data)
                try:
                    data = _encoder.encode(reply)
                except (TypeError, msgspec.EncodeError):
                    log.exception("rpc error details for %s are not JSON", subject)
                    data = _encoder.encode(_Reply(error=RpcError("INTERNAL", "Internal error.")))
                if msg.reply:
                    await nc.publish(msg.reply, data)
            except Exception:
                log.exception("rpc reply on %s failed", subject)
            finally:
                slots.release()

    async def on_message(msg: Msg) -> None:
        await slots.acquire()
        task = asyncio.create_task(answer(msg), name=f"rpc {subject}")
        in_flight.add(task)
        task.add_done_callback(in_flight.discard)

    return await nc.subscribe(subject, queue=queue or subject, cb=on_message)


async def _answer(
    subject: str,
    decoder: msgspec.json.Decoder[Any],
    handler: Callable[[Any], Awaitable[Any]],
    data: bytes,
) -> _Reply:
    try:
        request = decoder.decode(data)
    except msgspec.DecodeError as exc:
        return _Reply(error=RpcError("INVALID_ARGUMENT", f"Bad RPC request: {exc}"))
    try:
        result = await handler(request)
        return _Reply(ok=msgspec.Raw(_encoder.encode(result)))
    except ApiError as exc:
        return _Reply(error=RpcError(exc.code, exc.message, exc.details))
    except Exception as exc:
        answer = infrastructure_error(exc)
        if answer is None:
            log.exception("rpc handler for %s failed", subject)
            return _Reply(error=RpcError("INTERNAL", "Internal error."))
        log.warning("rpc handler for %s: %s (%s)", subject, answer.message, exc)
        return _Reply(error=RpcError(answer.code, answer.message))


async def call(
    nc: Client, subject: str, request: Any, reply_type: type[Res], *, timeout_s: float = 2.0
) -> Res:
    """Ask `subject`; raises the `ApiError` the handler raised, or UNAVAILABLE/DEADLINE_EXCEEDED."""
    request_id = request_context.request_id.get()
    headers = {request_context.REQUEST_ID_HEADER: request_id} if request_id is not None else None
    try:
        msg = await nc.request(
            subject, _encoder.encode(request), timeout=timeout_s, headers=headers
        )
    except NoRespondersError:
        raise Unavailable(f"No service answers {subject}.") from None
    except (ConnectionClosedError, ConnectionDrainingError, OutboundBufferLimitError):
        raise Unavailable("The message bus is not available.") from None
    except TimeoutError:
        # The request waited in the reconnect buffer: nobody was reachable, rather than slow.
        if not nc.is_connected:
            raise Unavailable("The message bus is not available.") from None
        raise DeadlineExceeded(f"{subject} did not answer in time.") from None
    try:
        reply = _reply_decoder.decode(msg.data)
        if reply.error is not None:
            raise error_from_code(reply.error.code, reply.error.message, reply.error.details)
        result: Res = msgspec.json.decode(reply.ok, type=reply_type)
    except msgspec.DecodeError as exc:
        raise Internal(f"{subject} sent a reply this caller cannot read.") from exc
    return result
