"""Request/reply between services over core NATS (`rpc.<service>.<verb>`).

Replies carry either the result or an `RpcError` with the envelope's status code, which the caller
re-raises as the matching `ApiError`: a NOT_FOUND in identity is a NOT_FOUND for the client.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError

from redline.envelope.errors import ApiError, DeadlineExceeded, Unavailable, error_from_code
from redline.proto.rpc import RpcError

log = logging.getLogger("redline.bus.rpc")

Req = TypeVar("Req")
Res = TypeVar("Res")


class _Reply(msgspec.Struct, omit_defaults=True):
    ok: msgspec.Raw | None = None
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
) -> Subscription:
    """Answer `subject` with `handler`; replicas share requests through the queue group."""
    decoder = msgspec.json.Decoder(request_type)

    async def on_message(msg: Msg) -> None:
        try:
            request = decoder.decode(msg.data)
            result = await handler(request)
            reply = _Reply(ok=msgspec.Raw(_encoder.encode(result)))
        except ApiError as exc:
            reply = _Reply(error=RpcError(exc.code, exc.message, exc.details))
        except msgspec.DecodeError as exc:
            reply = _Reply(error=RpcError("INVALID_ARGUMENT", f"bad RPC request: {exc}"))
        except Exception:
            log.exception("rpc handler for %s failed", subject)
            reply = _Reply(error=RpcError("INTERNAL", "Internal error."))
        if msg.reply:
            await msg.respond(_encoder.encode(reply))

    return await nc.subscribe(subject, queue=queue or subject, cb=on_message)


async def call(
    nc: Client, subject: str, request: Any, reply_type: type[Res], *, timeout_s: float = 2.0
) -> Res:
    try:
        msg = await nc.request(subject, _encoder.encode(request), timeout=timeout_s)
    except NoRespondersError:
        raise Unavailable(f"No service answers {subject}.") from None
    except (NatsTimeoutError, TimeoutError):
        raise DeadlineExceeded(f"{subject} did not answer in time.") from None
    reply = _reply_decoder.decode(msg.data)
    if reply.error is not None:
        raise error_from_code(reply.error.code, reply.error.message, reply.error.details)
    assert reply.ok is not None
    result: Res = msgspec.json.decode(reply.ok, type=reply_type)
    return result
