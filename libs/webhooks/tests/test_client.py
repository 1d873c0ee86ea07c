"""What a webhook request reports: success only for 2xx, and a short reason for every failure
(HTTP status, timeout, refused connection, untrusted certificate) instead of an exception."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import pytest
from aiohttp import web
from pytest_aiohttp import AiohttpRawServer

from redline.webhooks import AddressGuard, WebhookClient

if TYPE_CHECKING:
    from conftest import FixedResolver, Handler, OpenClient, StartReceiver

LOCAL = AddressGuard(["127.0.0.1"])


def answering(status: int) -> Handler:
    async def respond(request: web.Request) -> web.StreamResponse:
        return web.Response(status=status)

    return respond


async def test_a_2xx_answer_is_ok_and_the_request_arrives_as_sent(
    start_receiver: StartReceiver, open_client: OpenClient
) -> None:
    receiver = await start_receiver()
    client = await open_client(LOCAL)
    body = b'{"event":"comment.created","id":"c_1"}'

    outcome = await client.post(
        receiver.url("/hooks/in?workspace=w_1"),
        body,
        {
            "Content-Type": "application/json",
            "webhook-id": "msg_1",
            "webhook-signature": "v1,abc=",
            "Authorization": "Bearer s3cret",
        },
    )

    assert outcome.ok
    assert outcome.status == 200
    assert outcome.error is None
    assert outcome.latency_ms > 0
    [received] = receiver.requests
    assert received.method == "POST"
    assert received.path_qs == "/hooks/in?workspace=w_1"
    assert received.body == body
    assert received.headers["Content-Type"] == "application/json"
    assert received.headers["webhook-id"] == "msg_1"
    assert received.headers["webhook-signature"] == "v1,abc="
    assert received.headers["Authorization"] == "Bearer s3cret"
    assert received.headers["User-Agent"] == "Redline-Webhooks/1"


async def test_the_user_agent_is_configurable_and_a_request_header_overrides_it(
    start_receiver: StartReceiver, open_client: OpenClient
) -> None:
    receiver = await start_receiver()
    client = await open_client(LOCAL, user_agent="Acme-Hooks/2")

    await client.post(receiver.url(), b"{}", {})
    await client.post(receiver.url(), b"{}", {"User-Agent": "Workflow/7"})

    agents = [request.headers["User-Agent"] for request in receiver.requests]
    assert agents == ["Acme-Hooks/2", "Workflow/7"]


async def test_204_is_ok(start_receiver: StartReceiver, open_client: OpenClient) -> None:
    receiver = await start_receiver(answering(204))
    client = await open_client(LOCAL)

    outcome = await client.post(receiver.url(), b"{}", {})

    assert (outcome.ok, outcome.status, outcome.error) == (True, 204, None)


@pytest.mark.parametrize("status", [500, 404, 429, 410])
async def test_other_statuses_are_failures_with_the_status(
    status: int, start_receiver: StartReceiver, open_client: OpenClient
) -> None:
    receiver = await start_receiver(answering(status))
    client = await open_client(LOCAL)

    outcome = await client.post(receiver.url(), b"{}", {})

    assert (outcome.ok, outcome.status, outcome.error) == (False, status, f"HTTP {status}")


@pytest.fixture
async def stuck() -> AsyncIterator[asyncio.Event]:
    """Holds slow receivers' answers until the test ends, so their server can close cleanly."""
    release = asyncio.Event()
    yield release
    release.set()


async def test_a_slow_receiver_times_out(
    start_receiver: StartReceiver, open_client: OpenClient, stuck: asyncio.Event
) -> None:
    async def answer_late(request: web.Request) -> web.StreamResponse:
        await stuck.wait()
        return web.Response()

    receiver = await start_receiver(answer_late)
    client = await open_client(LOCAL, timeout_s=0.3)

    outcome = await client.post(receiver.url(), b"{}", {})

    assert (outcome.ok, outcome.status) == (False, None)
    assert outcome.error == "timeout after 0.3 s"
    assert 250 < outcome.latency_ms < 2000


async def test_a_refused_connection_is_a_failure(open_client: OpenClient) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]
    client = await open_client(LOCAL, timeout_s=2)

    outcome = await client.post(f"http://127.0.0.1:{free_port}/", b"{}", {})

    assert (outcome.ok, outcome.status) == (False, None)
    assert outcome.error == "connection failed: connection refused"


async def test_an_unknown_host_name_is_a_failure(
    open_client: OpenClient, fixed_resolver: Callable[[Mapping[str, Sequence[str]]], FixedResolver]
) -> None:
    client = await open_client(AddressGuard(), resolver=fixed_resolver({}))

    outcome = await client.post("https://nowhere.example.com/", b"{}", {})

    assert not outcome.ok
    assert outcome.error is not None
    assert outcome.error.startswith("connection failed: host name lookup failed")


async def test_a_receiver_closing_without_an_answer_is_a_failure(open_client: OpenClient) -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.close()
        await writer.wait_closed()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        client = await open_client(LOCAL, timeout_s=2)
        outcome = await client.post(f"http://127.0.0.1:{port}/", b"{}", {})
    finally:
        server.close()
        await server.wait_closed()

    assert (outcome.ok, outcome.status) == (False, None)
    assert outcome.error == "connection failed: the receiver closed the connection"


async def test_an_endless_answer_is_not_read_to_the_end(
    aiohttp_raw_server: AiohttpRawServer, open_client: OpenClient
) -> None:
    async def stream_forever(request: web.BaseRequest) -> web.StreamResponse:
        response = web.StreamResponse()
        await response.prepare(request)
        chunk = b"x" * 65536
        try:
            while True:
                await response.write(chunk)
        except ConnectionError:  # the client hung up, as it should
            return response

    server = await aiohttp_raw_server(stream_forever)
    client = await open_client(LOCAL, timeout_s=5)

    outcome = await client.post(str(server.make_url("/")), b"{}", {})

    assert (outcome.ok, outcome.status) == (True, 200)
    assert outcome.latency_ms < 5000


async def test_https_with_a_trusted_private_ca_is_ok(
    start_receiver: StartReceiver, open_client: OpenClient, ca_file: str
) -> None:
    receiver = await start_receiver(tls=True)
    client = await open_client(LOCAL, ca_file=ca_file)

    outcome = await client.post(f"https://127.0.0.1:{receiver.port}/hooks", b"{}", {})

    assert (outcome.ok, outcome.status, outcome.error) == (True, 200, None)
    assert [request.path_qs for request in receiver.requests] == ["/hooks"]


async def test_https_with_an_untrusted_certificate_fails_before_sending(
    start_receiver: StartReceiver, open_client: OpenClient
) -> None:
    receiver = await start_receiver(tls=True)
    client = await open_client(LOCAL)

    outcome = await client.post(f"https://127.0.0.1:{receiver.port}/hooks", b"{}", {})

    assert (outcome.ok, outcome.status) == (False, None)
    assert outcome.error is not None
    assert outcome.error.startswith("TLS certificate rejected: ")
    assert receiver.requests == []


async def test_posting_before_start_is_a_programming_error() -> None:
    client = WebhookClient(LOCAL)

    with pytest.raises(RuntimeError, match="not started"):
        await client.post("https://example.com/", b"{}", {})


async def test_the_client_works_as_a_context_manager(start_receiver: StartReceiver) -> None:
    receiver = await start_receiver()

    async with WebhookClient(LOCAL) as client:
        outcome = await client.post(receiver.url(), b"{}", {})

    assert outcome.ok
    assert len(receiver.requests) == 1


async def test_request_keeps_the_answer_and_sends_the_method_asked_for(
    start_receiver: StartReceiver, open_client: OpenClient
) -> None:
    async def answer_json(request: web.Request) -> web.StreamResponse:
        return web.json_response({"accepted": True}, status=201, headers={"ETag": '"v1"'})

    receiver = await start_receiver(answer_json)
    client = await open_client(LOCAL)

    reply = await client.request("GET", receiver.url("/status?id=1"), None, {"X-Trace": "t1"})

    assert (reply.outcome.ok, reply.outcome.status) == (True, 201)
    assert reply.body == b'{"accepted": true}'
    assert reply.headers["content-type"] == "application/json; charset=utf-8"
    assert reply.headers["etag"] == '"v1"'
    assert not reply.truncated
    [received] = receiver.requests
    assert (received.method, received.path_qs, received.body) == ("GET", "/status?id=1", b"")
    assert received.headers["X-Trace"] == "t1"


async def test_request_keeps_a_failed_answer_and_cuts_a_long_body(
    start_receiver: StartReceiver, open_client: OpenClient
) -> None:
    async def answer_long(request: web.Request) -> web.StreamResponse:
        return web.Response(status=503, body=b"y" * 100)

    receiver = await start_receiver(answer_long)
    client = await open_client(LOCAL)

    reply = await client.request("POST", receiver.url(), b"{}", {}, read_limit=10)

    assert (reply.outcome.ok, reply.outcome.status, reply.outcome.error) == (
        False,
        503,
        "HTTP 503",
    )
    assert (reply.body, reply.truncated) == (b"y" * 10, True)


async def test_request_takes_its_own_timeout(
    start_receiver: StartReceiver, open_client: OpenClient, stuck: asyncio.Event
) -> None:
    async def answer_late(request: web.Request) -> web.StreamResponse:
        await stuck.wait()
        return web.Response()

    receiver = await start_receiver(answer_late)
    client = await open_client(LOCAL, timeout_s=30)

    reply = await client.request("POST", receiver.url(), b"{}", {}, timeout_s=0.3)

    assert (reply.outcome.ok, reply.outcome.status) == (False, None)
    assert reply.outcome.error == "timeout after 0.3 s"
    assert (reply.headers, reply.body) == ({}, b"")


async def test_request_to_a_blocked_target_sends_nothing(open_client: OpenClient) -> None:
    client = await open_client(AddressGuard())

    reply = await client.request("POST", "https://10.0.0.1/hook", b"{}", {})

    assert reply.outcome.blocked
    assert reply.outcome.error == "blocked: the host is a private address"
