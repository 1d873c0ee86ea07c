"""The mixed load's list of operations and the load generator that runs it against one target:
aiohttp on keep-alive connections, a bounded number in flight, every request bounded in time,
every run bounded by a deadline."""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from tests.bench.comments_get import ORG
from tests.bench.load import REQUEST_TIMEOUT_S, LoadResult

SEED = 20_261_125
OPERATIONS = 2_000
WARMUP_OPERATIONS = 200
CONCURRENCY = 16
MIX = {"read": 70, "write": 20, "search": 5, "workflow": 5}
DOCUMENTS = 20
ANNOTATIONS_PER_DOCUMENT = 250
PAGE_SIZE = 50
DEFINITION = "mixed-signoff"
REVIEWER = "alice"
# A step waits for its reviewer within milliseconds when the system keeps up; far beyond that,
# the workflow run is counted as failed rather than waited for.
STEP_WAIT_S = 15.0
POLL_S = 0.01
# No run of the list should come near this; past it, no new operation starts and the run
# reports what it did.
RUN_DEADLINE_S = 120.0
# The rate both servers are compared at, as a share of the slower one's flat-out rate: low
# enough that neither queues much, high enough to be a load.
PACED_SHARE = 0.6
# The sustained run: the system on every operation for this long, at this share of its own
# flat-out rate.
SUSTAINED_S = 60.0
SUSTAINED_SHARE = 0.8
# What the sustained run must show for the comments endpoints.
TARGET_P99_MS = 100.0

PATHS = {
    "comments get": "/v2/commentannotations/get",
    "comments add": "/v2/commentannotations/add",
    "knowledge search": "/v2/memory/knowledge/search",
    "workflow dispatch": "/v2/workflow/executions/dispatch",
    "workflow get (poll)": "/v2/workflow/executions/get",
    "workflow decision": "/v2/workflow/steps/recordReviewerDecision",
}
BARE_PATHS = {
    "comments get": "/get",
    "comments add": "/add",
    "knowledge search": "/search",
}
ENDPOINT_OF = {"read": "comments get", "write": "comments add", "search": "knowledge search"}
QUERIES = [
    "how long does a customer have to send an item back?",
    "which warehouse keeps goods refrigerated?",
    "who approves travel above the limit?",
    "what must happen before a laptop leaves the office?",
    "when are supplier invoices paid?",
    "how many holiday days does a new employee get?",
]


@dataclass(frozen=True)
class Operation:
    kind: str
    # The request body, encoded once: the load generator should spend its time waiting.
    body: bytes


def operations(seed: int, count: int) -> list[Operation]:
    """`count` operations drawn with the mix's weights from a generator seeded with `seed`."""
    rng = random.Random(seed)
    kinds = rng.choices(list(MIX), weights=list(MIX.values()), k=count)
    found = []
    for n, kind in enumerate(kinds):
        document = f"mixed-doc-{rng.randrange(DOCUMENTS):02d}"
        data: dict[str, Any]
        if kind == "read":
            data = {"organizationId": ORG, "documentId": document, "pageSize": PAGE_SIZE}
        elif kind == "write":
            user = {"userId": f"user-{n % 20}", "name": f"User {n % 20}"}
            data = {
                "organizationId": ORG,
                "documentId": document,
                "commentAnnotations": [
                    {
                        "commentData": [
                            {
                                "commentText": f"Comment {n} of the mixed load, a sentence long.",
                                "commentHtml": f"<p>Comment {n} of the mixed load.</p>",
                                "from": user,
                            }
                        ]
                    }
                ],
            }
        elif kind == "search":
            data = {"query": rng.choice(QUERIES), "limit": 10}
        else:
            data = {"definitionId": DEFINITION}
        found.append(Operation(kind, json.dumps({"data": data}).encode()))
    return found


@dataclass
class RunResult:
    """One run of the list against one server."""

    seconds: float = 0.0
    done: int = 0
    endpoints: dict[str, LoadResult] = field(default_factory=dict)
    # Operations that could not finish (a workflow step that never waited, say).
    failed: int = 0
    # Whole workflow runs: dispatch, the polls until the step waits, the decision.
    workflow_ms: list[float] = field(default_factory=list)
    # The first unexpected answer of each endpoint, to show what went wrong.
    first_errors: dict[str, str] = field(default_factory=dict)
    # CPU seconds the target's own processes spent during the run (PostgreSQL, which both
    # share, left out), when /proc can tell.
    cpu_s: float | None = None

    @property
    def ops_per_s(self) -> float:
        return self.done / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms_per_op(self) -> float:
        if self.cpu_s is None or not self.done:
            return math.nan
        return 1000 * self.cpu_s / self.done

    def endpoint(self, name: str) -> LoadResult:
        return self.endpoints.setdefault(name, LoadResult(0, 0, 0.0, []))


class _Client:
    """One target's side of the load generator: aiohttp on keep-alive connections, at most
    one request in flight on each, every request bounded by REQUEST_TIMEOUT_S."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base: str,
        paths: dict[str, str],
        headers: dict[str, str],
        result: RunResult,
    ) -> None:
        self._session, self._base, self._paths = session, base, paths
        self._headers = {"content-type": "application/json", **headers}
        self.result = result

    async def call(self, endpoint: str, body: bytes) -> tuple[int, bytes]:
        """The status and body of one request; status 0 when no answer came."""
        stats = self.result.endpoint(endpoint)
        started = time.perf_counter()
        try:
            async with self._session.post(
                self._base + self._paths[endpoint], data=body, headers=self._headers
            ) as response:
                status, answer = response.status, await response.read()
        except (aiohttp.ClientError, TimeoutError) as exc:
            status, answer = 0, f"no answer: {exc!r}".encode()
        stats.latencies_ms.append((time.perf_counter() - started) * 1000)
        stats.requests += 1
        if status != 200:
            stats.errors += 1
            self.result.first_errors.setdefault(endpoint, f"{status} {answer[:300]!r}")
        return status, answer

    async def run(self, operation: Operation) -> None:
        if operation.kind != "workflow":
            status, _ = await self.call(ENDPOINT_OF[operation.kind], operation.body)
            self.result.failed += status != 200
            return
        started = time.perf_counter()
        if await self._workflow(operation.body):
            self.result.workflow_ms.append((time.perf_counter() - started) * 1000)
        else:
            self.result.failed += 1

    async def _workflow(self, dispatch: bytes) -> bool:
        status, answer = await self.call("workflow dispatch", dispatch)
        if status != 200:
            return False
        execution_id = json.loads(answer)["result"]["executionId"]
        poll = json.dumps({"data": {"executionId": execution_id}}).encode()
        deadline = time.perf_counter() + STEP_WAIT_S
        step_id = None
        while step_id is None:
            status, answer = await self.call("workflow get (poll)", poll)
            if status != 200:
                return False
            steps = json.loads(answer)["result"]["steps"]
            step_id = next((s["stepId"] for s in steps if s["status"] == "waiting"), None)
            if step_id is None:
                if time.perf_counter() > deadline:
                    self.result.first_errors.setdefault(
                        "workflow run", f"{execution_id}: no waiting step in {STEP_WAIT_S:g} s"
                    )
                    return False
                await asyncio.sleep(POLL_S)
        decision = {
            "executionId": execution_id,
            "stepId": step_id,
            "reviewerId": REVIEWER,
            "decision": "approve",
        }
        status, _ = await self.call("workflow decision", json.dumps({"data": decision}).encode())
        return status == 200


async def run_list(
    base: str,
    paths: dict[str, str],
    headers: dict[str, str],
    listed: Sequence[Operation],
    rate: float | None = None,
) -> RunResult:
    """Every operation of `listed`, CONCURRENCY at a time, in list order as workers free up;
    with a `rate`, operation i starts no earlier than i / rate seconds into the run."""
    result = RunResult()
    pending = iter(enumerate(listed))
    connector = aiohttp.TCPConnector(limit=CONCURRENCY)
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        client = _Client(session, base, paths, headers, result)
        started = time.perf_counter()
        stop_at = started + RUN_DEADLINE_S

        async def worker() -> None:
            for i, operation in pending:
                if rate is not None:
                    await asyncio.sleep(started + i / rate - time.perf_counter())
                if time.perf_counter() > stop_at:
                    return
                await client.run(operation)
                result.done += 1

        # A bound past the deadline that the last requests in flight cannot outlast: a run
        # ends, whatever the server does.
        async with asyncio.timeout(RUN_DEADLINE_S + REQUEST_TIMEOUT_S + STEP_WAIT_S + 5):
            await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        result.seconds = time.perf_counter() - started
    for stats in result.endpoints.values():
        stats.seconds = result.seconds
    return result
