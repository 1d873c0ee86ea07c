"""The annotation table's core statements, against a real database."""

from __future__ import annotations

from redline.comments.shared import storage
from redline.pg import Connection, Pool
from redline.proto.annotation import Status
from services.comments.tests.rows_support import annotation_row as row


async def insert(conn: Connection, rows: list[storage.AnnotationRow]) -> None:
    for each in rows:
        assert await storage.insert_if_absent(conn, each)


async def stored(pool: Pool, api_key: str, annotation_id: str) -> storage.AnnotationRow | None:
    record = await pool.fetchrow(
        f"SELECT {storage.row_columns()} FROM comments.annotation"  # noqa: S608 (its columns)
        " WHERE api_key = $1 AND organization_id = 'org' AND annotation_id = $2",
        api_key,
        annotation_id,
    )
    return None if record is None else storage.row_of(record)


async def test_annotation_numbers_are_reserved_per_document(pool: Pool) -> None:
    async with pool.acquire() as conn:
        assert await storage.next_numbers(conn, "key", "org", "doc", 3) == 1
        assert await storage.next_numbers(conn, "key", "org", "doc", 1) == 4
        assert await storage.next_numbers(conn, "key", "org", "other", 1) == 1


async def test_insert_lock_and_save_round_trip(pool: Pool) -> None:
    async with pool.acquire() as conn, conn.transaction():
        await insert(conn, [row("a1"), row("a2")])
        assert not await storage.insert_if_absent(conn, row("a1"))
        (locked,) = await storage.select_for_update(
            conn, "key", "org", "doc", storage.Selection(annotation_ids=["a1"])
        )
        locked.status_id = "open"
        locked.body.status = Status(id="open", name="Open", type="default")
        await storage.save(conn, locked)
        assert (
            await storage.select_for_update(
                conn, "key", "org", "other-doc", storage.Selection(annotation_ids=["a1"])
            )
            == []
        )
    again = await stored(pool, "key", "a1")
    assert again is not None
    assert again.status_id == "open"
    assert again.body.status == Status(id="open", name="Open", type="default")
    assert await stored(pool, "other-key", "a1") is None


async def test_moving_a_document_moves_its_annotations_and_numbering(pool: Pool) -> None:
    documents = storage.CommentDocuments()
    conn: Connection
    async with pool.acquire() as conn, conn.transaction():
        await storage.next_numbers(conn, "key", "org", "old", 2)
        await insert(conn, [row("a1", "old", 1), row("a2", "old", 2)])
        assert await documents.holds_document(conn, "key", "org", "old")
        assert not await documents.holds_document(conn, "key", "org", "new")
        assert await documents.move_document(conn, "key", "org", "old", "new") == 2
        assert await storage.next_numbers(conn, "key", "org", "new", 1) == 3
    moved = await stored(pool, "key", "a2")
    assert moved is not None
    assert moved.document_id == "new"
    assert moved.body.metadata.documentId == "new"


async def test_deleting_documents_takes_only_annotations_created_by_then(pool: Pool) -> None:
    early, late, other = row("early", "doc"), row("late", "doc"), row("other", "other-doc")
    late.created_at = 2_000
    async with pool.acquire() as conn:
        await insert(conn, [early, late, other])
        await conn.execute(
            "INSERT INTO comments.annotation_view (api_key, organization_id, annotation_id,"
            " user_id, viewed_at) VALUES ('key', 'org', 'early', 'u1', 1)"
        )

        # As of 1,000 ms: `late` was written after the delete, on the document added again.
        assert await storage.delete_documents(conn, "key", "org", ["doc"], 1_000) == 1
        assert await storage.delete_documents(conn, "other-key", "org", None, 5_000) == 0
        views = await conn.fetchval("SELECT count(*) FROM comments.annotation_view")

    assert await stored(pool, "key", "early") is None
    assert await stored(pool, "key", "late") is not None
    assert await stored(pool, "key", "other") is not None
    assert views == 0
    async with pool.acquire() as conn:
        # The whole organization.
        assert await storage.delete_documents(conn, "key", "org", None, 5_000) == 2
