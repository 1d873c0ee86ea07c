"""A real HTTPS webhook receiver for tests and benchmarks: it stands for a customer's server.

Serves on 127.0.0.1 with a certificate from a throwaway CA (`trustme`); the CA's PEM file is what
`REDLINE_WEBHOOK_CA_FILE` points at. It records every request, counts each `webhook-id` (so a
test sees duplicates), and can be told to fail the next requests or to go away and come back on
the same port.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import trustme
from aiohttp import web

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.monotonic() on arrival

    def json(self) -> Any:
        return msgspec.json.decode(self.body)


@dataclass
class WebhookReceiver:
    tls_dir: Path
    port: int = 0
    # The authority that signs the receiver's certificate: a system started before the receiver
    # (the split topology) is given its file once and trusts every receiver made with it.
    ca: trustme.CA = field(default_factory=trustme.CA)
    requests: list[Received] = field(default_factory=list)
    # Answers for the next requests, in order (then 200).
    scripted: list[int] = field(default_factory=list)
    # How long each answer takes: a slow receiver holds its deliveries in flight.
    answer_after_s: float = 0.0
    _runner: web.AppRunner | None = None
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    def __post_init__(self) -> None:
        self.ca_file = self.tls_dir / "receiver-ca.pem"
        self.tls_dir.mkdir(parents=True, exist_ok=True)
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        self._server_ssl = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert(HOST).configure_cert(self._server_ssl)

    @property
    def base_url(self) -> str:
        return f"https://{HOST}:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._receive)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, HOST, self.port, ssl_context=self._server_ssl)
        await site.start()
        if self.port == 0:
            server = site._server
            assert isinstance(server, asyncio.base_events.Server)
            self.port = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _receive(self, request: web.Request) -> web.Response:
        body = await request.read()
        received = Received(request.path, dict(request.headers), body, time.monotonic())
        async with self._changed:
            self.requests.append(received)
            self._changed.notify_all()
        status = self.scripted.pop(0) if self.scripted else 200
        if self.answer_after_s:
            await asyncio.sleep(self.answer_after_s)
        return web.Response(status=status)

    def counts(self) -> Counter[str]:
        """Requests per `webhook-id`."""
        return Counter(r.headers.get("webhook-id", "") for r in self.requests)

    def delivered(self, path: str | None = None) -> list[Received]:
        """One request per `webhook-id` (the first), optionally only to `path`."""
        seen: set[str] = set()
        unique = []
        for r in self.requests:
            key = r.headers.get("webhook-id", "")
            if key not in seen and (path is None or r.path == path):
                seen.add(key)
                unique.append(r)
        return unique

    async def wait_for(self, count: int, *, path: str | None = None, timeout_s: float = 10) -> None:
        """Until `count` distinct deliveries arrived (to `path`, if given)."""
        async with asyncio.timeout(timeout_s), self._changed:
            await self._changed.wait_for(lambda: len(self.delivered(path)) >= count)
