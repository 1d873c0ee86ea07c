"""Fixtures for the webhook tests: real local receivers (plain and TLS, with a test CA) that record
every request they get, clients closed after each test, and a resolver with fixed answers
(test modules cannot import each other under --import-mode=importlib)."""

from __future__ import annotations

import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest
import trustme
from aiohttp import web
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.test_utils import TestServer

from redline.webhooks import AddressGuard, WebhookClient

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Names the test CA's server certificate is valid for.
CERT_NAMES = ("127.0.0.1", "::1", "localhost", "receiver.example.com")


@dataclass(frozen=True)
class Received:
    method: str
    path_qs: str
    headers: Mapping[str, str]
    body: bytes


@dataclass
class Receiver:
    """A local webhook receiver on 127.0.0.1 and everything it was sent."""

    server: TestServer
    requests: list[Received] = field(default_factory=list)

    @property
    def port(self) -> int:
        port = self.server.port
        assert port is not None
        return port

    def url(self, path: str = "/") -> str:
        return str(self.server.make_url(path))


class StartReceiver(Protocol):
    async def __call__(self, handler: Handler | None = None, *, tls: bool = False) -> Receiver: ...


class OpenClient(Protocol):
    async def __call__(self, guard: AddressGuard, **options: Any) -> WebhookClient: ...


async def answer_ok(request: web.Request) -> web.StreamResponse:
    return web.Response(text="thanks")


@pytest.fixture(scope="session")
def test_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def ca_file(test_ca: trustme.CA, tmp_path: Path) -> str:
    path = tmp_path / "ca.pem"
    test_ca.cert_pem.write_to_path(path)
    return str(path)


@pytest.fixture
def start_receiver(aiohttp_server: Any, test_ca: trustme.CA) -> StartReceiver:
    """Starts receivers that answer with `handler` (200 by default) after recording the request;
    with `tls`, over HTTPS with a certificate from the test CA for CERT_NAMES."""

    async def start(handler: Handler | None = None, *, tls: bool = False) -> Receiver:
        respond = handler or answer_ok
        received: list[Received] = []

        async def record(request: web.Request) -> web.StreamResponse:
            body = await request.read()
            received.append(Received(request.method, request.path_qs, request.headers, body))
            return await respond(request)

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", record)
        server_tls = None
        if tls:
            server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            test_ca.issue_cert(*CERT_NAMES).configure_cert(server_tls)
        server = await aiohttp_server(app, ssl=server_tls)
        return Receiver(server, received)

    return start


@pytest.fixture
async def open_client() -> AsyncIterator[OpenClient]:
    """Starts WebhookClients and closes them when the test ends."""
    clients: list[WebhookClient] = []

    async def open_one(guard: AddressGuard, **options: Any) -> WebhookClient:
        client = WebhookClient(guard, **options)
        await client.start()
        clients.append(client)
        return client

    yield open_one
    for client in clients:
        await client.close()


class FixedResolver(AbstractResolver):
    """Answers host names from a table, as a DNS server under someone else's control would;
    names not in it do not exist. Records every name it was asked for."""

    def __init__(self, answers: Mapping[str, Sequence[str]]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        self.asked.append(host)
        if host not in self.answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            ResolveResult(
                hostname=host,
                host=address,
                port=port,
                family=socket.AF_INET6 if ":" in address else socket.AF_INET,
                proto=0,
                flags=socket.AI_NUMERICHOST,
            )
            for address in self.answers[host]
        ]

    async def close(self) -> None:
        pass


@pytest.fixture
def fixed_resolver() -> Callable[[Mapping[str, Sequence[str]]], FixedResolver]:
    return FixedResolver
