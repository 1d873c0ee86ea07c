"""count/get answers from tallies kept by the database, which must agree with counting the rows
one by one after any sequence of changes (adds, status, visibility and author changes, views,
document moves, deletes), for every reader and status filter, and must not read a document's
rows to do it."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import asyncpg

from redline.comments.annotations import storage as reads
from redline.comments.shared import storage
from redline.comments.thread import storage as thread
from redline.pg import Pool
from services.comments.tests.rows_support import annotation_row

DOCUMENTS = ("d1", "d2", "d3")
USERS = ("ana", "ben", "cy", "dee")
STATUSES = (None, "open", "resolved")
VISIBILITIES = ("public", "organizationPrivate", "restricted")
STATUS_FILTERS: tuple[list[str] | None, ...] = (None, ["open"], ["open", "resolved"])
VIEWERS: tuple[list[str] | None, ...] = (None, [], ["d2"])  # None: the key's own token


def _row(annotation_id: str, document: str, author: str | None, at: int) -> storage.AnnotationRow:
    return annotation_row(annotation_id, document, at, at=at, creator_user_id=author)


async def _row_by_row(
    pool: Pool, user: str, statuses: list[str] | None, viewer: reads.Viewer | None
) -> dict[str, tuple[int, int]]:
    """The counts, each annotation looked at in turn: the truth the tallies must tell."""
    visible = reads.AnnotationQuery(
        "key", "org", document_ids=list(DOCUMENTS), status_ids=statuses, viewer=viewer
    )
    if viewer is not None:
        viewer.record_views = False
    statement, params = reads.annotations_statement(visible)
    counts = dict.fromkeys(DOCUMENTS, (0, 0))
    async with pool.acquire() as conn:
        for r in await conn.fetch(statement, *params):
            seen = await conn.fetchval(
                "SELECT creator_user_id IS NOT DISTINCT FROM $2 OR EXISTS (SELECT 1 FROM"
                " comments.annotation_view v WHERE v.annotation_id = $1 AND v.user_id = $2)"
                " FROM comments.annotation WHERE annotation_id = $1",
                r["annotation_id"],
                user,
            )
            total, unread = counts[r["document_id"]]
            counts[r["document_id"]] = (total + 1, unread + (0 if seen else 1))
    return counts


async def _tallied(
    pool: Pool, user: str, statuses: list[str] | None, viewer: reads.Viewer | None
) -> dict[str, tuple[int, int]]:
    rows = await reads.count_annotations(
        pool, "key", "org", list(DOCUMENTS), user, statuses, viewer
    )
    return {r["document_id"]: (r["total"], r["unread"]) for r in rows}


def _viewer(user: str, public_only: list[str] | None) -> reads.Viewer | None:
    return None if public_only is None else reads.Viewer(user, public_only)


async def _assert_tallies_agree(pool: Pool) -> None:
    for user in USERS:
        for statuses in STATUS_FILTERS:
            for public_only in VIEWERS:
                expected = await _row_by_row(pool, user, statuses, _viewer(user, public_only))
                assert (
                    await _tallied(pool, user, statuses, _viewer(user, public_only)) == expected
                ), (
                    user,
                    statuses,
                    public_only,
                )


async def _change(pool: Pool, rng: random.Random, step: int) -> None:
    """One random change through the statements the service uses, or a plain UPDATE."""
    async with pool.acquire() as conn:
        ids = [
            r["annotation_id"]
            for r in await conn.fetch("SELECT annotation_id FROM comments.annotation")
        ]
        target = rng.choice(ids) if ids else None
        kind = rng.choice(
            [
                "add",
                "add",
                "status",
                "visibility",
                "author",
                "view",
                "view",
                "page",
                "delete",
                "move",
                "delete documents",
            ]
        )
        if kind == "add" or target is None:
            row = _row(f"a{step}", rng.choice(DOCUMENTS), rng.choice((*USERS, None)), step)
            await storage.insert_if_absent(conn, row)
        elif kind == "status":
            await conn.execute(
                "UPDATE comments.annotation SET status_id = $2 WHERE annotation_id = $1",
                target,
                rng.choice(STATUSES),
            )
        elif kind == "visibility":
            await conn.execute(
                "UPDATE comments.annotation SET visibility = $2, visible_to = $3,"
                " assigned_user_id = $4 WHERE annotation_id = $1",
                target,
                rng.choice(VISIBILITIES),
                rng.sample(USERS, 1),
                rng.choice((*USERS, None)),
            )
        elif kind == "author":
            await conn.execute(
                "UPDATE comments.annotation SET creator_user_id = $2 WHERE annotation_id = $1",
                target,
                rng.choice((*USERS, None)),
            )
        elif kind == "view":
            await thread.mark_viewed(conn, "key", "org", target, rng.choice(USERS))
        elif kind == "page":
            # A user's get records what it shows them as viewed, in its own statement.
            user = rng.choice(USERS)
            query = reads.AnnotationQuery(
                "key",
                "org",
                document_ids=[rng.choice(DOCUMENTS)],
                limit=3,
                viewer=reads.Viewer(user),
            )
            await reads.select_annotations(pool, query)
        elif kind == "delete":
            await storage.delete_annotations(conn, "key", "org", [target])
        elif kind == "move":
            await storage.CommentDocuments().move_document(
                conn, "key", "org", rng.choice(DOCUMENTS), rng.choice(DOCUMENTS)
            )
        else:
            await storage.delete_documents(conn, "key", "org", [rng.choice(DOCUMENTS)], step)


async def test_the_tallies_agree_with_the_rows_after_any_changes(pool: Pool) -> None:
    rng = random.Random(7)
    for step in range(1, 241):
        await _change(pool, rng, step)
        if step % 40 == 0:
            await _assert_tallies_agree(pool)


async def test_concurrent_changes_and_views_keep_the_tallies_right(pool: Pool) -> None:
    async with pool.acquire() as conn:
        for i in range(30):
            await storage.insert_if_absent(conn, _row(f"a{i}", DOCUMENTS[i % 3], USERS[i % 4], i))

    async def flip_statuses(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(60):
            async with pool.acquire() as conn:
                await conn.execute(
                    "UPDATE comments.annotation SET status_id = $2, visibility = $3"
                    " WHERE annotation_id = $1",
                    f"a{rng.randrange(30)}",
                    rng.choice(STATUSES),
                    rng.choice(VISIBILITIES),
                )

    async def view(user: str) -> None:
        for i in range(30):
            async with pool.acquire() as conn:
                await thread.mark_viewed(conn, "key", "org", f"a{i}", user)

    aborted = 0
    for outcome in await asyncio.gather(
        flip_statuses(1), flip_statuses(2), *(view(u) for u in USERS), return_exceptions=True
    ):
        if isinstance(outcome, asyncpg.DeadlockDetectedError):
            aborted += 1  # answered ABORTED; what committed must still add up
        elif isinstance(outcome, BaseException):
            raise outcome
    assert aborted == 0
    await _assert_tallies_agree(pool)


def _rows_read(plan: Any) -> int:
    read = 0
    if plan.get("Relation Name") == "annotation":
        read += (plan["Actual Rows"] + plan.get("Rows Removed by Filter", 0)) * plan["Actual Loops"]
    return read + sum(_rows_read(child) for child in plan.get("Plans", []))


async def test_a_count_reads_only_the_rows_whose_visibility_turns_on_the_reader(
    pool: Pool,
) -> None:
    async with pool.acquire() as conn, conn.transaction():
        for i in range(3000):
            await storage.insert_if_absent(conn, _row(f"a{i}", "d1", USERS[i % 4], i))
        await conn.execute(
            "UPDATE comments.annotation SET visibility = 'restricted', visible_to = '{ana}'"
            " WHERE annotation_id IN ('a1', 'a2', 'a3')"
        )
        await conn.execute("ANALYZE comments.annotation")
    for viewer in (None, reads.Viewer("ana"), reads.Viewer("ana", ["d1"])):
        statement, params = reads.count_statement("key", "org", ["d1"], "ana", None, viewer)
        async with pool.acquire() as conn:
            plan = await conn.fetchval("EXPLAIN (ANALYZE, FORMAT JSON) " + statement, *params)
            counts = await conn.fetchrow(statement, *params)
        assert _rows_read(plan[0]["Plan"]) <= 3
        # ana wrote every fourth annotation and may see the restricted ones.
        assert (counts["total"], counts["unread"]) == (3000, 2250)
