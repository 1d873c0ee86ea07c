"""RPC over a real nats-server: results, errors re-raised as the same class, and the failure
modes a caller sees (nobody there, too slow, a request the server cannot read)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import msgspec
import pytest

from redline.bus import Bus, rpc
from redline.envelope.errors import (
    DeadlineExceeded,
    Internal,
    InvalidArgument,
    NotFound,
    Unavailable,
)
from redline.proto import request_context

SUBJECT = "rpc.test.lookup"


class Lookup(msgspec.Struct, frozen=True):
    name: str
    delay_s: float = 0.0


class Found(msgspec.Struct, frozen=True):
    name: str
    size: int


async def lookup(request: Lookup) -> Found:
    await asyncio.sleep(request.delay_s)
    if request.name == "missing":
        raise NotFound("No such thing.", details={"name": request.name})
    if request.name == "boom":
        raise RuntimeError("a bug in the handler")
    return Found(name=request.name, size=len(request.name))


@pytest.fixture
async def served(nats_url: str) -> AsyncIterator[Bus]:
    bus = await Bus.connect(nats_url, name="rpc-tests")
    subscription = await rpc.serve(bus.nc, SUBJECT, Lookup, lookup)
    try:
        yield bus
    finally:
        await subscription.unsubscribe()
        await bus.close()


async def test_a_call_returns_the_handlers_result(served: Bus) -> None:
    assert await rpc.call(served.nc, SUBJECT, Lookup("thing"), Found) == Found("thing", 5)


async def test_an_api_error_is_raised_again_on_the_caller_side(served: Bus) -> None:
    with pytest.raises(NotFound) as caught:
        await rpc.call(served.nc, SUBJECT, Lookup("missing"), Found)
    assert caught.value.message == "No such thing."
    assert caught.value.details == {"name": "missing"}


async def test_an_unexpected_handler_failure_is_internal_without_its_details(served: Bus) -> None:
    with pytest.raises(Internal) as caught:
        await rpc.call(served.nc, SUBJECT, Lookup("boom"), Found)
    assert "bug" not in caught.value.message


async def test_no_responders_is_unavailable(served: Bus) -> None:
    with pytest.raises(Unavailable):
        await rpc.call(served.nc, "rpc.test.nobody", Lookup("thing"), Found)


async def test_a_slow_handler_is_deadline_exceeded(served: Bus) -> None:
    with pytest.raises(DeadlineExceeded):
        await rpc.call(served.nc, SUBJECT, Lookup("thing", delay_s=1.0), Found, timeout_s=0.2)


async def test_a_malformed_request_is_invalid_argument(served: Bus) -> None:
    with pytest.raises(InvalidArgument) as caught:
        await rpc.call(served.nc, SUBJECT, {"nome": "typo"}, Found)
    assert "name" in caught.value.message
    reply = await served.nc.request(SUBJECT, b"{not json", timeout=2)
    assert msgspec.json.decode(reply.data)["error"]["code"] == "INVALID_ARGUMENT"


async def test_a_slow_request_does_not_hold_up_the_ones_behind_it(served: Bus) -> None:
    slow = asyncio.create_task(
        rpc.call(served.nc, SUBJECT, Lookup("slow", delay_s=1.0), Found, timeout_s=3)
    )
    await asyncio.sleep(0.05)
    fast = await rpc.call(served.nc, SUBJECT, Lookup("fast"), Found, timeout_s=0.5)
    assert fast == Found("fast", 4)
    assert not slow.done()
    assert await slow == Found("slow", 4)


async def test_a_result_of_none_comes_back_as_none(served: Bus) -> None:
    async def nothing(request: Lookup) -> None:
        return None

    subscription = await rpc.serve(served.nc, "rpc.test.nothing", Lookup, nothing)
    try:
        assert await rpc.call(served.nc, "rpc.test.nothing", Lookup("x"), type(None)) is None
    finally:
        await subscription.unsubscribe()


class Seen(msgspec.Struct, frozen=True):
    request_id: str | None


async def test_the_callers_request_id_is_the_servers_while_it_answers(nats_url: str) -> None:
    async def whose(request: Lookup) -> Seen:
        return Seen(request_context.request_id.get())

    bus = await Bus.connect(nats_url, name="rpc-context")
    subscription = await rpc.serve(bus.nc, "rpc.test.whose", Lookup, whose)
    try:
        with request_context.serving("req-77", "ws_1"):
            inside = await rpc.call(bus.nc, "rpc.test.whose", Lookup("x"), Seen)
        outside = await rpc.call(bus.nc, "rpc.test.whose", Lookup("x"), Seen)
    finally:
        await subscription.unsubscribe()
        await bus.close()

    assert inside == Seen("req-77")
    # The next request carries none, and none is left over from the one before.
    assert outside == Seen(None)
