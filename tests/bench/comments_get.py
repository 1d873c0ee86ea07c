"""Benchmark: reading and adding comment annotations, full stack vs bare aiohttp + asyncpg.

One document holds 10,000 annotations (written straight into the table), 10 statuses and 50
locations spread evenly. Then, through the all-in-one system as `make run` starts it, on a
PostgreSQL server this benchmark starts (so the baseline can share it):

- get: `/v2/commentannotations/get` for the document, one status (1,000 match), pageSize 100,
  with the API key's auth token; the baseline runs the very same SQL statement and writes the
  rows' stored JSON into the same envelope. Target: full-stack p50 at most 2x the baseline's.
- add: `/v2/commentannotations/add`, one annotation with one comment per request; the baseline
  does the same writes in one transaction (number, row, two outbox events, notify). Target:
  at least 50 % of the baseline's requests/s.

The baseline has a database of its own on the same server (same disk, same flushes): were its
rows and outbox events in the system's database, the system's relay would publish them and its
consumers would work on them while the baseline is timed.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from redline.comments.app import MIGRATIONS
from redline.comments.shared import storage
from redline.comments.shared.storage import SCHEMA
from redline.local.servers import LocalPostgres
from redline.pg import create_pool
from redline.pg.migrate import migrate
from tests.api.comments_rows import insert_rows
from tests.bench.load import LoadResult, run_load
from tests.bench.report import Row, exit_code, row
from tests.bench.servers import HERE, free_port, process, system
from tests.bench.workspace_get import create_workspace, post, report

ORG = "bench-org"
DOC = "bench-doc"
STATUS = "status-3"
BASELINE_DATABASE = "bench_baseline"
ANNOTATIONS = 10_000
T0 = 1_700_000_000_000
TARGET_GET_P50_RATIO = 2.0
TARGET_ADD_RATIO = 0.50
ROUNDS = 3
SECONDS = 3.0


def annotation_row(api_key: str, i: int, document: str = DOC) -> storage.AnnotationRow:
    """The i-th seeded annotation, in `document`: ten statuses and fifty locations in turn."""
    user = {"userId": f"user-{i % 20}", "name": f"User {i % 20}", "email": "u@example.com"}
    status = f"status-{i % 10}"
    location = f"loc-{i % 50}"
    body = {
        "annotationId": f"ann-{i:05d}",
        "annotationNumber": i + 1,
        "annotationIndex": i + 1,
        "type": "comment",
        "sourceType": "rest-api",
        "createdAt": T0 + i * 1000,
        "lastUpdated": T0 + i * 1000,
        "hasDraftComments": False,
        "locationId": location,
        "location": {"id": location},
        "visibilityConfig": {"type": "public"},
        "metadata": {"apiKey": api_key, "organizationId": ORG, "documentId": document},
        "from": user,
        "status": {"id": status, "name": status, "type": "default"},
        "comments": [
            {
                "commentId": 1,
                "type": "text",
                "status": "added",
                "commentText": f"Comment number {i} on this document, long enough to be real.",
                "commentHtml": f"<p>Comment number {i} on this document.</p>",
                "createdAt": T0 + i * 1000,
                "lastUpdated": "2023-11-14T22:13:20+00:00",
                "from": user,
            }
        ],
    }
    return storage.AnnotationRow(
        api_key=api_key,
        organization_id=ORG,
        document_id=document,
        annotation_id=body["annotationId"],  # type: ignore[arg-type]
        annotation_number=i + 1,
        type="comment",
        source_type="rest-api",
        status_id=status,
        status_type="default",
        location_id=location,
        creator_user_id=user["userId"],
        commenter_user_ids=[user["userId"]],
        created_at=T0 + i * 1000,
        last_updated=T0 + i * 1000,
        body=body,
    )


async def _fill(database_url: str, api_key: str) -> None:
    pool = await create_pool(database_url, max_size=1)
    try:
        async with pool.acquire() as conn, conn.transaction():
            await insert_rows(conn, [annotation_row(api_key, i) for i in range(ANNOTATIONS)])
            await conn.execute("ANALYZE comments.annotation")
    finally:
        await pool.close()


async def _baseline_database(server_url: str, api_key: str) -> str:
    """A database of the baseline's own on the same server: the comments schema as the service
    migrates it, filled with the same rows. No relay reads its outbox, so the system under test
    does no work for the baseline's writes while the baseline is timed."""
    server = await asyncpg.connect(server_url)
    try:
        await server.execute(f"CREATE DATABASE {BASELINE_DATABASE}")
    finally:
        await server.close()
    url = urlunsplit(urlsplit(server_url)._replace(path="/" + BASELINE_DATABASE))
    pool = await create_pool(url, max_size=1)
    try:
        async with pool.acquire() as conn:
            await migrate(conn, SCHEMA, MIGRATIONS)
    finally:
        await pool.close()
    await _fill(url, api_key)
    return url


GET_BODY = json.dumps(
    {"data": {"organizationId": ORG, "documentId": DOC, "statusIds": [STATUS], "pageSize": 100}}
).encode()
ADD_BODY = json.dumps(
    {
        "data": {
            "organizationId": ORG,
            "documentId": DOC,
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": [
                {
                    "commentData": [
                        {
                            "commentText": "A new comment from the benchmark.",
                            "commentHtml": "<p>A new comment from the benchmark.</p>",
                            "from": {"userId": "user-1", "name": "User 1"},
                        }
                    ]
                }
            ],
        }
    }
).encode()


def _load(port: int, path: str, body: bytes, headers: dict[str, str], conns: int) -> LoadResult:
    return asyncio.run(
        run_load("127.0.0.1", port, path, body, headers, connections=conns, seconds=SECONDS)
    )


def _median(results: list[LoadResult]) -> LoadResult:
    return sorted(results, key=lambda r: r.rps)[len(results) // 2]


Measure = tuple[LoadResult, LoadResult, LoadResult]


def _measure_in_turns(
    full: tuple[int, dict[str, str]], bare: tuple[int, dict[str, str]], connections: int
) -> tuple[Measure, Measure]:
    """Get one request at a time, get under load, add under load: each measured on the full
    stack and then on the baseline, in turns, round after round, so drift of the machine (disk
    flushes above all) touches both alike; the median round of each is kept."""
    paths = {
        "full": ("/v2/commentannotations/get", "/v2/commentannotations/add"),
        "bare": ("/get", "/add"),
    }
    targets = {"full": full, "bare": bare}
    runs: dict[tuple[str, int], list[LoadResult]] = {}
    for _ in range(ROUNDS):
        for step, (body, conns) in enumerate(
            [(GET_BODY, 1), (GET_BODY, connections), (ADD_BODY, connections)]
        ):
            for name in ("full", "bare"):
                port, headers = targets[name]
                path = paths[name][1 if body is ADD_BODY else 0]
                runs.setdefault((name, step), []).append(_load(port, path, body, headers, conns))

    def medians(name: str) -> Measure:
        return (
            _median(runs[(name, 0)]),
            _median(runs[(name, 1)]),
            _median(runs[(name, 2)]),
        )

    return medians("full"), medians("bare")


def main(connections: int = 16) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="redline-bench-comments-") as tmp:
        data_dir = Path(tmp)
        postgres = LocalPostgres(data_dir / "pg")
        try:
            port = free_port()
            with system(port, data_dir / "data", {"REDLINE_DATABASE_URL": postgres.url}):
                base = f"http://127.0.0.1:{port}"
                _, headers = create_workspace(base)
                api_key = headers["x-redline-api-key"]
                asyncio.run(_fill(postgres.url, api_key))
                sample = json.loads(
                    post(base + "/v2/commentannotations/get", json.loads(GET_BODY)["data"], headers)
                )
                assert len(sample["result"]["data"]) == 100, sample
                # One add first: it creates the organization and document the load then uses.
                post(base + "/v2/commentannotations/add", json.loads(ADD_BODY)["data"], headers)
                bare_port = free_port()
                bare_url = asyncio.run(_baseline_database(postgres.url, api_key))
                args = [str(bare_port), bare_url, api_key, ORG, DOC, STATUS]
                with process([sys.executable, str(HERE / "bare_comments.py"), *args], bare_port):
                    full, bare = _measure_in_turns((port, headers), (bare_port, {}), connections)
        finally:
            postgres.stop()
    return _report(full, bare, connections)


def _report(
    full: tuple[LoadResult, LoadResult, LoadResult],
    bare: tuple[LoadResult, LoadResult, LoadResult],
    connections: int,
) -> list[Row]:
    print(
        f"comment annotations: one document of {ANNOTATIONS:,}; "
        f"{ROUNDS} rounds of {SECONDS:.0f} s per figure, median round"
    )
    report("get, full stack, 1 connection", full[0])
    report("get, bare, 1 connection", bare[0])
    report(f"get, full stack, {connections} connections", full[1])
    report(f"get, bare, {connections} connections", bare[1])
    ratio = full[0].p50 / bare[0].p50
    get_ok = ratio <= TARGET_GET_P50_RATIO
    verdict = "meets" if get_ok else "MISSES"
    print(f"  get p50 {ratio:.2f}x the bare query ({verdict} the {TARGET_GET_P50_RATIO:g}x target)")
    full_add, bare_add = full[2], bare[2]
    report(f"add, full stack, {connections} connections", full_add)
    report(f"add, bare, {connections} connections", bare_add)
    add_ratio = full_add.rps / bare_add.rps
    add_ok = add_ratio >= TARGET_ADD_RATIO
    verdict = "meets" if add_ok else "MISSES"
    print(f"  add {add_ratio:.0%} of bare's req/s ({verdict} the {TARGET_ADD_RATIO:.0%} target)")
    many = f"{connections} connections"
    return [
        row(
            "get p50, 1 connection",
            full[0].p50,
            "ms",
            baseline=bare[0].p50,
            target=f"≤ {TARGET_GET_P50_RATIO:g}x baseline",
            met=get_ok,
        ),
        row(f"get, {many}", full[1].rps, "req/s", baseline=bare[1].rps),
        row(f"get p50, {many}", full[1].p50, "ms", baseline=bare[1].p50),
        row(
            f"add, {many}",
            full_add.rps,
            "req/s",
            baseline=bare_add.rps,
            target=f"≥ {TARGET_ADD_RATIO:.2f}x baseline",
            met=add_ok,
        ),
        row(f"add p50, {many}", full_add.p50, "ms", baseline=bare_add.p50),
    ]


if __name__ == "__main__":
    sys.exit(exit_code(main()))
