"""Two tenants on one Redline: B keeps a steady load of what its users do, A attacks.

The system runs as `redline up` does, in a process of its own, so that the load and the attack
(this process) and the server (that one) do not share an event loop. B's load is paced, not
flat out: a request every 1/RATE s whatever the answers, so that B's latency shows what the
attack costs B, not how fast B's client can go. Each attack is measured beside a run of the
same load alone just before it (and, where B's figure under attack is past its bound, just after
it too), so both see the machine as it is then. `make test` runs this suite alone, after the
others, for the same reason.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import site
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from concurrent.futures import ProcessPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from redline.local.processes import answers_ready, free_port, start_server_process
from redline.testing.api import ApiClient, Workspace
from redline.testing.plugin import random_secret_key
from tests.api.knowledge_support import TEXT, ingest, inline, settled
from tests.api.workflow_support import mock_agent

RATE_PER_S = 25.0
LOAD_S = 3.0
# B's p95 and p99 under attack may each be twice the same figure alone. Latencies below a floor
# count as the floor: on a shared 2-core machine, scheduling alone moves a few-millisecond tail by
# 25 ms, and the p99 of a run's 75 calls is its slowest call, which one pause of a CI machine
# takes to 80 ms whatever the attack.
TAIL_RATIO = 2.0
TAIL_FLOORS_MS = {0.95: 25.0, 0.99: 50.0}
# Failed checks of credentials, links and tokens an address may make a minute (the default).
AUTH_FAILURES_PER_MINUTE = 120
# B's address, as the gateway in front of Redline reports it (the last X-Forwarded-For hop).
B_ADDRESS = "198.51.100.7"
A_NETWORK = "203.0.113.0/24"
A_ADDRESS = "203.0.113.9"

Operation = Callable[[ApiClient], Awaitable[int]]


@asynccontextmanager
async def system_process(
    database_url: str, nats_url: str, root: Path, settings: dict[str, str] | None = None
) -> AsyncIterator[str]:
    """`redline up` on the test's PostgreSQL and NATS; its base URL while it runs."""
    port = free_port()
    env = {
        **os.environ,
        "REDLINE_DATABASE_URL": database_url,
        "REDLINE_NATS_URL": nats_url,
        "REDLINE_DATA_DIR": str(root / "data"),
        "REDLINE_SECRET_KEY": random_secret_key(),
        "REDLINE_PORT": str(port),
        "REDLINE_OPEN_SIGNUP": "true",
        # The gateway (this machine), and A's network inside the trusted range, as a pod's is.
        "REDLINE_TRUSTED_PROXIES": f"127.0.0.1/32,{A_NETWORK}",
        # B's own load is well within what its plan allows: its limits are not under test.
        "REDLINE_RATE_LIMIT_GENERAL": "100000",
        "REDLINE_RATE_LIMIT_SEARCH": "100000",
        "REDLINE_RATE_LIMIT_INGEST": "100000",
        "REDLINE_RATE_LIMIT_SIGNUP": "100000",
        "REDLINE_RATE_LIMIT_AUTH_FAILURES": str(AUTH_FAILURES_PER_MINUTE),
        "REDLINE_LOG_LEVEL": "WARNING",
        # A's permission provider and receivers run on this machine.
        "REDLINE_WEBHOOK_ALLOW": "127.0.0.1",
        **(settings or {}),
    }
    command = [sys.executable, "-m", "redline.cli", "up"]
    process = start_server_process(
        command, log_path=root / "redline.log", death_signal=signal.SIGKILL, env=env
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while not await asyncio.to_thread(answers_ready, base_url, 1.0):
            assert process.poll() is None, (root / "redline.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the system did not become ready"
            await asyncio.sleep(0.2)
        yield base_url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.to_thread(process.wait, 30)
        except subprocess.TimeoutExpired:  # a stop that hangs is killed
            process.kill()
            await asyncio.to_thread(process.wait)


@dataclass
class Tenant:
    api: ApiClient
    ws: Workspace
    headers: dict[str, str]


async def tenant(session: aiohttp.ClientSession, base_url: str, email: str) -> Tenant:
    api = ApiClient(session, base_url)
    ws = await api.create_workspace(email)
    return Tenant(api, ws, ws.key_headers)


@dataclass
class Latencies:
    """What B saw in one run: each call's time, and the calls that did not answer 200."""

    seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # The slowest call of each kind, in ms: where a tail comes from.
    slowest: dict[str, float] = field(default_factory=dict)

    def p(self, quantile: float) -> float:
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, int(quantile * len(ordered)))] * 1000

    def record(self, operation: str, seconds: float) -> None:
        self.seconds.append(seconds)
        self.slowest[operation] = max(self.slowest.get(operation, 0.0), seconds * 1000)

    def summary(self) -> str:
        slowest = ", ".join(f"{name} {ms:.0f}" for name, ms in sorted(self.slowest.items()))
        return (
            f"{len(self.seconds)} calls, p50 {self.p(0.5):.1f} ms, p95 {self.p(0.95):.1f} ms,"
            f" p99 {self.p(0.99):.1f} ms,"
            f" {len(self.errors)} errors (slowest ms: {slowest})"
        )


class SteadyLoad:
    """B's users: comment adds and reads on a document, knowledge searches, workflow runs."""

    def __init__(self, b: Tenant) -> None:
        self.b = b
        self.dispatched: list[str] = []
        self.user_token = ""
        self._n = 0

    async def prepare(self) -> None:
        b = self.b
        source = await ingest(
            b.api, b.ws, inline(b"Refunds are paid within fourteen days.", TEXT, "refunds.txt")
        )
        assert (await settled(b.api, b.ws, source))["status"] == "completed"
        created = await b.api.post(
            "/v2/workflow/definitions/create",
            {
                "definitionId": "b-flow",
                "name": "b-flow",
                "nodes": [mock_agent("one"), mock_agent("two")],
                "edges": [{"from": "one", "to": "two", "on": "always"}],
            },
            headers=b.headers,
        )
        assert created.status == 200, created.body
        await self._add()
        token = await b.api.post("/v2/auth/generate_token", {"userId": "bea"}, headers=b.headers)
        assert token.status == 200, token.body
        self.user_token = token.data["token"]

    async def _call(
        self, path: str, data: dict[str, Any], *, as_user: bool = False
    ) -> tuple[int, Any]:
        headers = {**self.b.headers, "X-Forwarded-For": B_ADDRESS}
        if as_user:
            headers["x-redline-auth-token"] = self.user_token
        answer = await self.b.api.post(path, data, headers=headers)
        return answer.status, answer.body

    async def _add(self) -> int:
        status, _ = await self._call(
            "/v2/commentannotations/add",
            {
                "organizationId": "b-org",
                "documentId": "b-doc",
                "createOrganization": True,
                "createDocument": True,
                "commentAnnotations": [
                    {"commentData": [{"commentText": "Looks good", "from": {"userId": "bea"}}]}
                ],
            },
        )
        return status

    async def _get(self) -> int:
        """A read as B's user, with a user token, as a browser's: identity is asked what the
        user may see."""
        status, _ = await self._call(
            "/v2/commentannotations/get",
            {"organizationId": "b-org", "documentId": "b-doc", "pageSize": 50},
            as_user=True,
        )
        return status

    async def _search(self) -> int:
        status, _ = await self._call("/v2/memory/knowledge/search", {"query": "refund time"})
        return status

    async def _dispatch(self) -> int:
        status, body = await self._call(
            "/v2/workflow/executions/dispatch", {"definitionId": "b-flow"}
        )
        if status == 200:
            self.dispatched.append(body["result"]["executionId"])
        return status

    def next_operation(self) -> Callable[[], Awaitable[int]]:
        operations = (self._add, self._get, self._search, self._get, self._dispatch)
        self._n += 1
        return operations[self._n % len(operations)]

    async def run(self, seconds: float = LOAD_S) -> Latencies:
        """Call at RATE_PER_S for `seconds`, each call on time whatever the others do."""
        seen = Latencies()

        async def timed(operation: Callable[[], Awaitable[int]]) -> None:
            started = time.perf_counter()
            try:
                status = await operation()
            except aiohttp.ClientError as exc:
                seen.errors.append(f"{operation.__name__}: {exc!r}")
                return
            seen.record(operation.__name__.strip("_"), time.perf_counter() - started)
            if status != 200:
                seen.errors.append(f"{operation.__name__}: HTTP {status}")

        calls = []
        start = time.perf_counter()
        for i in range(int(seconds * RATE_PER_S)):
            await asyncio.sleep(max(0.0, start + i / RATE_PER_S - time.perf_counter()))
            calls.append(asyncio.create_task(timed(self.next_operation())))
        await asyncio.gather(*calls)
        return seen

    async def runs_completed(self, timeout_s: float = 60) -> None:
        """Every workflow run B dispatched completes."""
        deadline = time.monotonic() + timeout_s
        for execution_id in self.dispatched:
            while True:
                _, body = await self._call(
                    "/v2/workflow/executions/get", {"executionId": execution_id}
                )
                status = body["result"]["status"]
                if status == "completed":
                    break
                assert status in ("running", "pending"), body
                assert time.monotonic() < deadline, f"B's run {execution_id} is still {status}"
                await asyncio.sleep(0.1)


@dataclass
class Verdict:
    attack: str
    alone: Latencies
    attacked: Latencies
    outcome: str

    def line(self) -> str:
        return (
            f"{self.attack}: B alone {self.alone.summary()}; B under attack"
            f" {self.attacked.summary()}; A: {self.outcome}"
        )


Attack = Callable[..., Coroutine[Any, Any, str]]


# The checkout's root, where an attack's module is found (pytest imports test modules by path).
ROOT = str(Path(__file__).resolve().parents[2])


def _attack_in_process(attack: Attack, args: tuple[Any, ...]) -> str:
    return asyncio.run(attack(*args))


async def under_attack(
    load: SteadyLoad, name: str, attack: Attack, *args: Any, leaves_work: bool = False
) -> Verdict:
    """B's load alone, then again while `attack(*args)` runs; B must not notice. Past the
    bound, B's load alone once more (unless the attack `leaves_work` for the system to do after
    it returns), and the worse of the two runs alone is the figure to compare with.

    The attack runs in a process of its own (`attack` is a module-level coroutine function and
    its arguments pickle), so that A's client work does not slow B's client down: only what
    the system does with A's calls may show in B's figures."""
    alone = await load.run()
    loop = asyncio.get_running_loop()
    spawn = multiprocessing.get_context("spawn")
    # `site.addsitedir` puts the root on the child's path; it is named by its own module, so
    # the child can load it before it can import anything of ours.
    with ProcessPoolExecutor(1, spawn, initializer=site.addsitedir, initargs=(ROOT,)) as pool:
        # The process is started, and has imported what it needs, before B's load is timed.
        await loop.run_in_executor(pool, _attack_in_process, _ready, ())
        attacking = loop.run_in_executor(pool, _attack_in_process, attack, args)
        attacked = await load.run()
        outcome = await attacking
    # Past the bound, B's load alone again once the attack is over: the machine's own load
    # drifts (other processes), and B's figure alone is the worse of the two runs around it.
    if not leaves_work and not within_bounds(attacked, alone):
        alone_after = await load.run()
        if alone_after.p(0.95) > alone.p(0.95):
            alone_after.errors += alone.errors
            alone = alone_after
    verdict = Verdict(name, alone, attacked, outcome)
    print(verdict.line())
    assert not alone.errors, alone.errors[:5]
    assert not attacked.errors, attacked.errors[:5]
    assert within_bounds(attacked, alone), verdict.line()
    await load.runs_completed()
    return verdict


def within_bounds(attacked: Latencies, alone: Latencies) -> bool:
    return all(
        attacked.p(quantile) <= TAIL_RATIO * max(alone.p(quantile), floor_ms)
        for quantile, floor_ms in TAIL_FLOORS_MS.items()
    )


async def _ready() -> str:
    return "ready"


@asynccontextmanager
async def client(base_url: str) -> AsyncIterator[ApiClient]:
    """An ApiClient of its own, for an attack in its process."""
    async with aiohttp.ClientSession() as session:
        yield ApiClient(session, base_url)
