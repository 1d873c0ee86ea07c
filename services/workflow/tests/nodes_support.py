"""Shared by the node runner tests: a step run to start from, the real HTTPS receiver answering
what a test scripts (any method, a body, headers, a delay), and a real SMTP server that records
messages and refuses the recipients a test names."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from aiohttp import web

from redline.testing.receiver import HOST, Received, WebhookReceiver
from redline.webhooks import AddressGuard, WebhookClient
from redline.workflow.engine.nodes.outcome import Callback, StepRun

# The receivers listen on 127.0.0.1, which the guard refuses unless the operator allows it.
LOCAL = AddressGuard([HOST])
SECRET = "whsec-test-secret-0123456789"


def step_run(**changes: Any) -> StepRun:
    """A first attempt at step `step_review_1` of node `review`, with `changes` applied."""
    run = StepRun(
        apiKey="key_1",
        workspaceId="ws_1",
        executionId="exec_1700000000000_abc",
        definitionId="content-review",
        correlationId="corr-1",
        stepId="step_review_1",
        nodeId="review",
        attempt=1,
        triggerContext={"page": {"title": "Launch plan", "url": "docs.acme.dev/launch"}},
        input={"decision": "approve", "summary": {"text": "All good"}},
        step={"stepId": "step_review_1", "nodeId": "review", "status": "running", "retryCount": 0},
        webhookSecret=SECRET,
        organizationId="org_1",
        documentId="doc_1",
        callback=Callback(
            url="https://redline.example.com/v2/workflow/callbacks/step_review_1",
            token="cb-token-1",
            tokenHeader="x-redline-callback-token",
        ),
    )
    return msgspec.structs.replace(run, **changes)


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def json_answer(value: Any, status: int = 200, **headers: str) -> Answer:
    return Answer(
        status, msgspec.json.encode(value), {"Content-Type": "application/json", **headers}
    )


@dataclass
class ScriptedReceiver(WebhookReceiver):
    """The HTTPS test receiver taking any method and answering with `answers` in order (then an
    empty 200). `methods` lists each request's method; header names are kept in lower case."""

    answers: list[Answer] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    _release: asyncio.Event = field(default_factory=asyncio.Event)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._answer)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, HOST, self.port, ssl_context=self._server_ssl)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.base_events.Server)
        self.port = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self._release.set()  # a delayed answer must not hold the shutdown up
        await super().stop()

    async def _answer(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.methods.append(request.method)
        headers = {name.lower(): value for name, value in request.headers.items()}
        self.requests.append(Received(request.path, headers, body, time.monotonic()))
        answer = self.answers.pop(0) if self.answers else Answer()
        if answer.delay_s:
            with suppress(TimeoutError):
                await asyncio.wait_for(self._release.wait(), answer.delay_s)
        return web.Response(status=answer.status, body=answer.body, headers=answer.headers)


@asynccontextmanager
async def receiver_and_client(
    tls_dir: Path, **client_options: Any
) -> AsyncIterator[tuple[ScriptedReceiver, WebhookClient]]:
    """A started receiver and a guarded client that trusts its certificate."""
    receiver = ScriptedReceiver(tls_dir)
    await receiver.start()
    try:
        async with WebhookClient(LOCAL, ca_file=str(receiver.ca_file), **client_options) as client:
            yield receiver, client
    finally:
        await receiver.stop()


@asynccontextmanager
async def local_hook(
    handle: Callable[[web.Request], Awaitable[web.StreamResponse]],
) -> AsyncIterator[str]:
    """A plain-HTTP receiver on HOST answering POST /hook with `handle`; yields its URL."""
    app = web.Application()
    app.router.add_post("/hook", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, HOST, 0)
    await site.start()
    try:
        yield f"http://{HOST}:{runner.addresses[0][1]}/hook"
    finally:
        await runner.cleanup()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port
