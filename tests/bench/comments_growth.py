"""Benchmark: a first page and a count on one document as it grows from 1,000 to 1,000,000
annotations.

One organization holds four documents of 1,000, 10,000, 100,000 and 1,000,000 annotations
(written straight into the table, in that order, so the largest is also the newest). For each
document, through the all-in-one system as `make run` starts it:

- get, first page of 50: no filter, then each documented filter alone (one status, two
  statuses, two locations, one author, a mentioned user, a resolver, an agent, updatedAfter,
  createdBefore), then with a user token (visibility and access checks);
- count/get of the document for one user.

Each figure is the p50 of CALLS calls, beside the bare SQL: the very statement the service runs,
sent over asyncpg to the same server. Target: the 1,000,000 figure at most 1.5x the 1,000 one.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import msgspec

from redline.comments.annotations import models, reading
from redline.comments.annotations import storage as reads
from redline.comments.shared import storage
from redline.local.servers import LocalPostgres
from redline.pg import create_pool
from redline.runtime.settings import RuntimeSettings, load_settings
from tests.bench.report import Row, exit_code, row
from tests.bench.servers import free_port, system
from tests.bench.workspace_get import create_workspace, post

ORG = "growth-org"
SIZES = (1_000, 10_000, 100_000, 1_000_000)
CALLS = 20
PAGE = 50
T0 = 1_700_000_000_000
TARGET_GROWTH = 1.5
VIEWER = "viewer-1"

# name -> the get request's filters (beside organizationId and documentId)
FILTERS: dict[str, dict[str, Any]] = {
    "no filter": {},
    "one status": {"statusIds": ["status-3"]},
    "two statuses": {"statusIds": ["status-3", "status-7"]},
    "two locations": {"locationIds": ["loc-3", "loc-17"]},
    "one author": {"userIds": ["user-4"]},
    "mentioned user": {"mentionedUserIds": ["user-9"]},
    "resolver": {"resolvedBy": "user-2"},
    "agent": {"agentId": "agent-1"},
    "updatedAfter": {"updatedAfter": T0},
    "createdBefore": {"createdBefore": T0 + 10**12},
}


def _row(api_key: str, document: str, i: int, at: int) -> tuple[Any, ...]:
    """The i-th annotation of `document`: ten statuses, fifty locations, twenty authors in turn;
    every tenth mentions someone, every tenth is resolved, every twentieth is an agent's."""
    author = f"user-{i % 20}"
    status, location = f"status-{i % 10}", f"loc-{i % 50}"
    agent = i % 20 == 7
    body = {
        "annotationId": f"{document}-{i:07d}",
        "annotationNumber": i + 1,
        "type": "comment",
        "sourceType": "agent" if agent else "rest-api",
        "createdAt": at,
        "lastUpdated": at,
        "locationId": location,
        "visibilityConfig": {"type": "public"},
        "metadata": {"apiKey": api_key, "organizationId": ORG, "documentId": document},
        "from": {"userId": author, "name": author},
        "status": {"id": status, "name": status, "type": "default"},
        "comments": [
            {
                "commentId": 1,
                "type": "text",
                "commentText": f"Comment {i} on {document}.",
                "from": {"userId": author, "name": author},
            }
        ],
    }
    values = {
        "api_key": api_key,
        "organization_id": ORG,
        "document_id": document,
        "annotation_id": body["annotationId"],
        "annotation_number": i + 1,
        "type": "comment",
        "source_type": "agent" if agent else "rest-api",
        "suggestion_status": None,
        "status_id": status,
        "status_type": "default",
        "location_id": location,
        "creator_user_id": author,
        "assigned_user_id": None,
        "resolved_by": f"user-{i % 7}" if i % 10 == 3 else None,
        "visibility": "public",
        "visible_to": [],
        "mentioned_user_ids": [f"user-{i % 13}"] if i % 10 == 5 else [],
        "commenter_user_ids": [author],
        "agent_id": f"agent-{i % 3}" if agent else None,
        "agent_type": None,
        "agent_source": None,
        "execution_id": None,
        "created_at": at,
        "last_updated": at,
        "body": json.dumps(body),
    }
    return tuple(values[c] for c in storage.COLUMNS)


async def _fill(database_url: str, api_key: str) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        at = T0
        for size in SIZES:
            document = f"doc-{size}"
            for start in range(0, size, 50_000):
                records = [
                    _row(api_key, document, i, at + i)
                    for i in range(start, min(size, start + 50_000))
                ]
                await conn.copy_records_to_table(
                    "annotation", schema_name="comments", records=records, columns=storage.COLUMNS
                )
            at += size
        # As autovacuum would have by the time anyone reads: the table and the counters its
        # triggers kept (the fill updated each of a document's few tally rows per row written).
        await conn.execute(
            "VACUUM ANALYZE comments.annotation, comments.annotation_tally,"
            " comments.annotation_seen_tally, comments.annotation_mention"
        )
    finally:
        await conn.close()


def _call(url: str, data: dict[str, Any], headers: dict[str, str]) -> None:
    request = urllib.request.Request(  # noqa: S310 (a loopback URL built here)
        url,
        data=json.dumps({"data": data}).encode(),
        headers={"content-type": "application/json", **headers},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
        answer = json.loads(response.read())
    assert "result" in answer, answer


def _p50_ms(url: str, data: dict[str, Any], headers: dict[str, str]) -> float:
    _call(url, data, headers)  # warm: the first call of a shape prepares its statement
    times = []
    for _ in range(CALLS):
        started = time.perf_counter()
        _call(url, data, headers)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


async def _p50_ms_bare(statement: Callable[..., Awaitable[Any]], *args: Any) -> float:
    await statement(*args)
    times = []
    for _ in range(CALLS):
        started = time.perf_counter()
        await statement(*args)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def _query(api_key: str, document: str, filters: dict[str, Any]) -> reads.AnnotationQuery:
    """The service's own query for the get request, paged as the service pages it."""
    request = msgspec.convert(
        {"organizationId": ORG, "documentId": document, **filters}, models.GetAnnotations
    )
    query = reading.annotation_query(api_key, request, [document])
    query.limit = PAGE + 1
    query.byte_budget = load_settings(RuntimeSettings, {}).page_byte_budget
    return query


async def _bare(database_url: str, api_key: str) -> dict[tuple[str, int], float]:
    pool = await create_pool(database_url, max_size=1)
    figures: dict[tuple[str, int], float] = {}
    try:
        for size in SIZES:
            document = f"doc-{size}"
            for name, filters in FILTERS.items():
                figures[(name, size)] = await _p50_ms_bare(
                    reads.select_annotations, pool, _query(api_key, document, filters)
                )
            figures[("count", size)] = await _p50_ms_bare(
                reads.count_annotations, pool, api_key, ORG, [document], VIEWER, None, None
            )
    finally:
        await pool.close()
    return figures


def main() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="redline-bench-growth-") as tmp:
        postgres = LocalPostgres(Path(tmp) / "pg")
        try:
            port = free_port()
            with system(port, Path(tmp) / "data", {"REDLINE_DATABASE_URL": postgres.url}):
                base = f"http://127.0.0.1:{port}"
                _, headers = create_workspace(base)
                api_key = headers["x-redline-api-key"]
                # The documents exist in the directory, and the viewer may read them.
                for size in SIZES:
                    post(
                        base + "/v2/users/add",
                        {
                            "organizationId": ORG,
                            "createOrganization": True,
                            "documentId": f"doc-{size}",
                            "createDocument": True,
                            "users": [{"userId": VIEWER, "accessRole": "viewer"}],
                        },
                        headers,
                    )
                token = json.loads(
                    post(base + "/v2/auth/generate_token", {"userId": VIEWER}, headers)
                )["result"]["data"]["token"]
                viewer = {"x-redline-api-key": api_key, "x-redline-auth-token": token}
                started = time.monotonic()
                asyncio.run(_fill(postgres.url, api_key))
                print(f"filled {sum(SIZES):,} annotations in {time.monotonic() - started:.0f} s")
                full = _measure(base, headers, viewer)
                bare = asyncio.run(_bare(postgres.url, api_key))
        finally:
            postgres.stop()
    return _report(full, bare)


def _measure(
    base: str, headers: dict[str, str], viewer: dict[str, str]
) -> dict[tuple[str, int], float]:
    figures: dict[tuple[str, int], float] = {}
    get, count = base + "/v2/commentannotations/get", base + "/v2/commentannotations/count/get"
    for size in SIZES:
        document = {"organizationId": ORG, "documentId": f"doc-{size}", "pageSize": PAGE}
        for name, filters in FILTERS.items():
            figures[(name, size)] = _p50_ms(get, {**document, **filters}, headers)
        figures[("user token", size)] = _p50_ms(get, document, viewer)
        counted = {"organizationId": ORG, "documentIds": [f"doc-{size}"], "userId": VIEWER}
        figures[("count", size)] = _p50_ms(count, counted, headers)
    return figures


def _report(full: dict[tuple[str, int], float], bare: dict[tuple[str, int], float]) -> list[Row]:
    print(f"comments growth: p50 of {CALLS} calls, ms; first page of {PAGE}; (bare SQL)")
    names = [*FILTERS, "user token", "count"]
    print(f"  {'':16}" + "".join(f"{size:>20,}" for size in SIZES) + "   growth")
    rows = []
    for name in names:
        cells = "".join(
            f"{full[(name, s)]:>11.2f} ({bare[(name, s)]:6.2f})"
            if (name, s) in bare
            else f"{full[(name, s)]:>20.2f}"
            for s in SIZES
        )
        growth = full[(name, SIZES[-1])] / full[(name, SIZES[0])]
        met = growth <= TARGET_GROWTH
        print(f"  {name:16}{cells}   {growth:.2f}x {'meets' if met else 'MISSES'}")
        rows.append(
            row(
                f"{name}, p50 at {SIZES[-1]:,} annotations",
                full[(name, SIZES[-1])],
                "ms",
                baseline=full[(name, SIZES[0])],
                target=f"≤ {TARGET_GROWTH:g}x the figure at {SIZES[0]:,}",
                met=met,
            )
        )
    return rows


if __name__ == "__main__":
    sys.exit(exit_code(main()))
