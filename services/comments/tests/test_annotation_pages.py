"""A page of the get endpoint reads only its own rows, however large the document, even when the
table's statistics do not know about the rows (right after a document grew)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from redline.comments.annotations import storage as reads
from redline.comments.app import MIGRATIONS
from redline.comments.shared import storage
from redline.pg import Pool, create_pool, migrate

BIG = 3000
PAGE = 20


def _record(document: str, i: int, at: int) -> tuple[Any, ...]:
    values = dict.fromkeys(storage.COLUMNS) | {
        "api_key": "key",
        "organization_id": "org",
        "document_id": document,
        "annotation_id": f"{document}-{i:05d}",
        "annotation_number": i + 1,
        "type": "comment",
        "source_type": "rest-api",
        "status_id": f"status-{i % 10}",
        "location_id": f"loc-{i % 50}",
        "creator_user_id": f"user-{i % 20}",
        "visibility": "public",
        "visible_to": [],
        "mentioned_user_ids": [],
        "commenter_user_ids": [],
        # Ties on lastUpdated in pairs, so the annotationId tie-break is exercised too.
        "created_at": at + i // 2,
        "last_updated": at + i // 2,
        "body": {"annotationId": f"{document}-{i:05d}"},
    }
    return tuple(values[c] for c in storage.COLUMNS)


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[Pool]:
    pool = await create_pool(database_url, max_size=2)
    async with pool.acquire() as conn:
        await migrate(conn, storage.SCHEMA, MIGRATIONS)
        # A small document older than every row of a big one.
        for document in ("small", "big"):
            async with conn.transaction():
                for i in range(SIZES[document]):
                    record = _record(document, i, STARTS[document])
                    await storage.insert_if_absent(
                        conn,
                        storage.AnnotationRow(**dict(zip(storage.COLUMNS, record, strict=True))),
                    )
            if document == "small":
                # Statistics taken before the big document grew: they say it has no rows.
                await conn.execute("ANALYZE comments.annotation")
    yield pool
    await pool.close()


def _rows_read(plan: Any) -> int:
    """Rows every scan of the annotation table read (kept or filtered out), over all its loops."""
    read = 0
    if plan.get("Relation Name") == "annotation":
        per_loop = plan["Actual Rows"] + plan.get("Rows Removed by Filter", 0)
        read += per_loop * plan["Actual Loops"]
    return read + sum(_rows_read(child) for child in plan.get("Plans", []))


async def _plan(pool: Pool, query: reads.AnnotationQuery) -> Any:
    statement, params = reads.annotations_statement(query)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(reads.PAGE_PLAN_SETTINGS)
        explained = await conn.fetchval("EXPLAIN (ANALYZE, FORMAT JSON) " + statement, *params)
    # The pool decodes json values.
    return explained[0]["Plan"]


SIZES = {"small": 200, "big": BIG}
STARTS = {"small": 0, "big": 10_000}


def _expected(document: str, keep: Any) -> list[str]:
    """The document's matching annotations in page order: newest first, then annotationId."""
    records = [_record(document, i, STARTS[document]) for i in range(SIZES[document])]
    at, ids = storage.COLUMNS.index("last_updated"), storage.COLUMNS.index("annotation_id")
    return [r[ids] for r in sorted(filter(keep, records), key=lambda r: (-r[at], r[ids]))]


COLUMN = {name: storage.COLUMNS.index(name) for name in storage.COLUMNS}

SHAPES = {
    "no filter": ({}, lambda r: True, 1),
    "one status": ({"status_ids": ["status-3"]}, lambda r: r[COLUMN["status_id"]] == "status-3", 1),
    "two statuses": (
        {"status_ids": ["status-3", "status-4"]},
        lambda r: r[COLUMN["status_id"]] in ("status-3", "status-4"),
        2,
    ),
    "two locations": (
        {"location_ids": ["loc-1", "loc-2"]},
        lambda r: r[COLUMN["location_id"]] in ("loc-1", "loc-2"),
        2,
    ),
    "one author": (
        {"creator_ids": ["user-7"]},
        lambda r: r[COLUMN["creator_user_id"]] == "user-7",
        1,
    ),
}


@pytest.mark.parametrize("document", ["small", "big"])
@pytest.mark.parametrize("shape", list(SHAPES))
async def test_a_page_reads_only_its_rows_in_page_order(
    pool: Pool, document: str, shape: str
) -> None:
    filters, keep, ranges = SHAPES[shape]
    query = reads.AnnotationQuery(
        "key", "org", document_ids=[document], limit=PAGE + 1, byte_budget=1 << 20
    )
    for name, values in filters.items():
        setattr(query, name, values)
    rows = await reads.select_annotations(pool, query)
    assert [r["annotation_id"] for r in rows] == _expected(document, keep)[:PAGE]
    # One row beyond the page per index range read: nothing of the rest of the document.
    assert _rows_read(await _plan(pool, query)) <= ranges * (PAGE + 1)


async def test_a_page_over_two_documents_merges_their_orders(pool: Pool) -> None:
    query = reads.AnnotationQuery(
        "key", "org", document_ids=["small", "big"], limit=PAGE + 1, byte_budget=1 << 20
    )
    rows = await reads.select_annotations(pool, query)
    # The big document's rows are all newer: the first page is wholly its.
    assert [r["annotation_id"] for r in rows] == _expected("big", lambda r: True)[:PAGE]
    assert _rows_read(await _plan(pool, query)) <= 2 * (PAGE + 1)
