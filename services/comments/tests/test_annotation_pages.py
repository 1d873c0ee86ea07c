"""A page of the get endpoint reads only its own rows, however large the document, even when the
table's statistics do not know about the rows (right after a document grew)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from redline.comments.annotations import storage as reads
from redline.comments.app import MIGRATIONS
from redline.comments.shared import storage
from redline.pg import Pool, create_pool, migrate
from services.comments.tests.rows_support import annotation_row

BIG = 3000
PAGE = 20
# A small document older than every row of a big one.
SIZES = {"small": 200, "big": BIG}
STARTS = {"small": 0, "big": 10_000}


def _row(document: str, i: int) -> storage.AnnotationRow:
    # Ties on lastUpdated in pairs, so the annotationId tie-break is exercised too.
    return annotation_row(
        f"{document}-{i:05d}",
        document,
        i + 1,
        at=STARTS[document] + i // 2,
        status_id=f"status-{i % 10}",
        location_id=f"loc-{i % 50}",
        creator_user_id=f"user-{i % 20}",
        # Every seventh mentions someone; every 21st two users.
        mentioned_user_ids=[f"user-{i % 3}", "user-9"][: 1 + (i % 21 == 0)] if i % 7 == 0 else [],
    )


def _rows(document: str) -> list[storage.AnnotationRow]:
    return [_row(document, i) for i in range(SIZES[document])]


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[Pool]:
    pool = await create_pool(database_url, max_size=2)
    async with pool.acquire() as conn:
        await migrate(conn, storage.SCHEMA, MIGRATIONS)
        for document in SIZES:
            async with conn.transaction():
                for row in _rows(document):
                    await storage.insert_if_absent(conn, row)
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


def _expected(document: str, keep: Callable[[storage.AnnotationRow], bool]) -> list[str]:
    """The document's matching annotations in page order: newest first, then annotationId."""
    matching = sorted(
        filter(keep, _rows(document)), key=lambda r: (-r.last_updated, r.annotation_id)
    )
    return [r.annotation_id for r in matching]


# name: (the query's filters, which rows they keep, index ranges the page reads)
SHAPES: dict[str, tuple[dict[str, list[str]], Callable[[storage.AnnotationRow], bool], int]] = {
    "no filter": ({}, lambda r: True, 1),
    "one status": ({"status_ids": ["status-3"]}, lambda r: r.status_id == "status-3", 1),
    "two statuses": (
        {"status_ids": ["status-3", "status-4"]},
        lambda r: r.status_id in ("status-3", "status-4"),
        2,
    ),
    "two locations": (
        {"location_ids": ["loc-1", "loc-2"]},
        lambda r: r.location_id in ("loc-1", "loc-2"),
        2,
    ),
    "one author": ({"creator_ids": ["user-7"]}, lambda r: r.creator_user_id == "user-7", 1),
    "one mentioned user": (
        {"mentioned_ids": ["user-1"]},
        lambda r: "user-1" in r.mentioned_user_ids,
        1,
    ),
    # user-0 and user-9 are mentioned together in every 21st annotation: each comes once.
    "two mentioned users": (
        {"mentioned_ids": ["user-0", "user-9"]},
        lambda r: bool({"user-0", "user-9"} & set(r.mentioned_user_ids)),
        2,
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


@pytest.mark.parametrize("descending", [True, False])
@pytest.mark.parametrize("shape", ["two statuses", "two mentioned users"])
async def test_pages_walked_by_their_cursor_hold_every_match_once(
    pool: Pool, shape: str, descending: bool
) -> None:
    filters, keep, _ = SHAPES[shape]
    walked: list[str] = []
    cursor = None
    while True:
        query = reads.AnnotationQuery(
            "key", "org", document_ids=["small"], limit=6, descending=descending, after=cursor
        )
        for name, values in filters.items():
            setattr(query, name, values)
        rows = await reads.select_annotations(pool, query)
        walked += [r["annotation_id"] for r in rows[:5]]
        if len(rows) <= 5:
            break
        cursor = reads.Cursor(rows[4]["last_updated"], rows[4]["annotation_id"])
    expected = _expected("small", keep)
    assert walked == (expected if descending else expected[::-1])
