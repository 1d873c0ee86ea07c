"""The ingest worker: takes sources waiting in PostgreSQL and turns each file into chunks, rules
and vectors.

Several replicas share the queue (a claim is a lease taken with SKIP LOCKED), and workspaces with
waiting files take turns, so one tenant's backlog holds up no other's. A worker that dies
mid-file loses its lease and another takes the source up again from the start: point ids are
derived from the source and the chunk's place, and the completion replaces the chunk and rule
rows, so a second attempt leaves exactly what one would. A file that kills its worker every time
fails after `max_attempts` claims.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from prometheus_client import Gauge

from redline.memory.blobs import BlobMissing, BlobStore
from redline.memory.embedding import EmbeddingFailed, EmbeddingRunner
from redline.memory.knowledge import storage
from redline.memory.knowledge.content import (
    FIRST_REVISION,
    markdown_key,
    points_of,
    rows_of,
    texts_of,
)
from redline.memory.knowledge.conversion import (
    ChunkSizes,
    Converted,
    Job,
    convert_in_child,
)
from redline.memory.knowledge.files import FileRejected, Limits
from redline.memory.vectors import KNOWLEDGE, Tenant, VectorFilter, VectorStore
from redline.pg import DeadHolderSweeps, Holder, Pool
from redline.pg.listen import Listener
from redline.proto.events import now_ms

log = logging.getLogger("redline.memory.ingest")

INGEST_QUEUE_DEPTH = Gauge(
    "redline_ingest_queue_depth",
    "Knowledge sources waiting for a worker (accepted, not yet leased).",
)
QUEUE_DEPTH_INTERVAL_S = 15.0

IDLE_POLL_S = 5.0
ERROR_BACKOFF_S = 1.0
UPSERT_BATCH = 256


def _tenant(source: storage.SourceRow) -> Tenant:
    return Tenant(source.workspace_id, source.api_key)


class IngestFailed(Exception):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class IngestWorker:
    def __init__(
        self,
        pool: Pool,
        blobs: BlobStore,
        vectors: VectorStore,
        embedding: EmbeddingRunner,
        *,
        sizes: ChunkSizes,
        limits: Limits,
        holder: Holder,
        concurrency: int = 1,
        lease_s: float = 120.0,
        max_attempts: int = 3,
        convert_timeout_s: float = 120.0,
        convert_memory_mb: int = 1024,
    ) -> None:
        self._pool = pool
        self._blobs = blobs
        self._vectors = vectors
        self._embedding = embedding
        self._sizes = sizes
        self._limits = limits
        self._concurrency = concurrency
        self._lease_s = lease_s
        # Names this process on its leases: they are free again as soon as it dies.
        self._holder = holder
        self._sweeps = DeadHolderSweeps()
        self._max_attempts = max_attempts
        self._convert_timeout_s = convert_timeout_s
        self._convert_memory_mb = convert_memory_mb
        self._wakeup = asyncio.Event()

    def wake(self) -> None:
        self._wakeup.set()

    async def run(self) -> None:
        listener = Listener(self._pool, storage.NOTIFY_CHANNEL, self.wake)
        try:
            async with asyncio.TaskGroup() as group:
                for n in range(self._concurrency):
                    group.create_task(self._take_forever(listener), name=f"ingest-{n}")
                group.create_task(self._measure_forever(), name="ingest-queue-depth")
        finally:
            await listener.close()

    async def _take_forever(self, listener: Listener) -> None:
        while True:
            self._wakeup.clear()
            try:
                await listener.renew()
                async with self._pool.acquire() as conn:
                    if self._sweeps.due():
                        await storage.free_dead_holders(conn)
                    source = await storage.claim_source(conn, self._lease_s, self._holder.number)
            except Exception as exc:
                log.warning("ingest claim failed (%s); retrying", exc)
                await asyncio.sleep(ERROR_BACKOFF_S)
                continue
            if source is None:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(IDLE_POLL_S):
                        await self._wakeup.wait()
                continue
            await self._ingest_leased(source)

    async def _measure_forever(self) -> None:
        while True:
            try:
                async with self._pool.acquire() as conn:
                    INGEST_QUEUE_DEPTH.set(await storage.waiting_sources(conn))
            except Exception as exc:
                log.warning("ingest queue depth not measured (%s)", exc)
            await asyncio.sleep(QUEUE_DEPTH_INTERVAL_S)

    async def _ingest_leased(self, source: storage.SourceRow) -> None:
        renewal = asyncio.create_task(self._renew_forever(source))
        try:
            await self.ingest(source)
        except Exception:
            # PostgreSQL or the vector store failed: the lease runs out (or this process ends)
            # and the source is taken up again.
            log.exception("ingesting %s failed; it will be retried", source.source_id)
        finally:
            renewal.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewal

    async def _renew_forever(self, source: storage.SourceRow) -> None:
        while True:
            await asyncio.sleep(self._lease_s / 3)
            with contextlib.suppress(Exception):
                async with self._pool.acquire() as conn:
                    await storage.renew_lease(conn, source.api_key, source.source_id, self._lease_s)

    async def ingest(self, source: storage.SourceRow) -> None:
        """Convert, embed and store one leased source; a file that cannot be ingested ends
        `failed` with its reason."""
        try:
            if source.attempts > self._max_attempts:
                raise IngestFailed(
                    "ingest-attempts-exhausted",
                    f"the file stopped its worker {self._max_attempts} times",
                )
            converted = await self._convert(source)
            await self._store_vectors(source, converted)
            await self._blobs.put(
                markdown_key(source.blob_key, FIRST_REVISION), converted.markdown.encode()
            )
        except IngestFailed as failed:
            await self._fail(source, failed.code, failed.detail)
            return
        except OSError as exc:
            await self._fail(source, "storage-upload-failed", f"the blob store failed: {exc}")
            return
        chunks, rules = rows_of(source.source_id, converted)
        async with self._pool.acquire() as conn, conn.transaction():
            completed = await storage.complete_source(
                conn, source.api_key, source.source_id, chunks, rules, now_ms()
            )
        if not completed:
            # Deleted while it was being ingested (its document went): drop what this wrote.
            where = VectorFilter(tenant=_tenant(source), equals={"sourceId": source.source_id})
            await self._vectors.delete(KNOWLEDGE, where)
            await self._blobs.delete(markdown_key(source.blob_key, FIRST_REVISION))

    async def _fail(self, source: storage.SourceRow, code: str, detail: str) -> None:
        log.info("ingest of %s failed: %s (%s)", source.source_id, code, detail)
        # A failed source is indexed not at all: an earlier attempt, stopped part-way, may have
        # left points behind.
        where = VectorFilter(tenant=_tenant(source), equals={"sourceId": source.source_id})
        await self._vectors.delete(KNOWLEDGE, where)
        async with self._pool.acquire() as conn:
            await storage.fail_source(
                conn, source.api_key, source.source_id, code, detail, now_ms()
            )

    async def _convert(self, source: storage.SourceRow) -> Converted:
        try:
            data = await self._blobs.get(source.blob_key)
        except BlobMissing:
            raise IngestFailed(
                "storage-upload-failed", "the file is missing from the store"
            ) from None
        job = Job(mime_type=source.mime_type, sizes=self._sizes, limits=self._limits, data=data)
        try:
            converted = await convert_in_child(
                job, timeout_s=self._convert_timeout_s, memory_mb=self._convert_memory_mb
            )
        except FileRejected as rejected:
            raise IngestFailed(rejected.code, rejected.detail) from None
        if not converted.chunks:
            raise IngestFailed("no-text-found", "the file holds no text to index")
        return converted

    async def _store_vectors(self, source: storage.SourceRow, converted: Converted) -> None:
        try:
            vectors = await self._embedding.passages(texts_of(converted))
        except EmbeddingFailed as exc:
            raise IngestFailed("embedding-failed", str(exc)) from None
        tenant = _tenant(source)
        points = points_of(tenant, source.source_id, source.uploaded_at, converted, vectors)
        # An earlier, interrupted attempt may have left points this one will not write.
        where = VectorFilter(tenant=tenant, equals={"sourceId": source.source_id})
        await self._vectors.delete(KNOWLEDGE, where)
        for start in range(0, len(points), UPSERT_BATCH):
            await self._vectors.upsert(KNOWLEDGE, points[start : start + UPSERT_BATCH])
