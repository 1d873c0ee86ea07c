"""The memory service as a plugin of the shared runtime, and as an app of its own.

It holds the embedding model, the vector store (the embedded Qdrant engine under the data dir,
or a Qdrant server at REDLINE_QDRANT_URL), the blob store, and the ingest worker.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web
from qdrant_client import AsyncQdrantClient

from redline.bus import DurableConsumer
from redline.envelope import add_endpoints
from redline.memory.alerts import routes as alert_routes
from redline.memory.alerts.check import sweep_forever
from redline.memory.alerts.service import AlertService
from redline.memory.app_keys import (
    ALERTS,
    ASK,
    INTAKE,
    JUDGMENTS,
    KNOWLEDGE,
    PATTERNS,
    PROFILES,
    REVISIONS,
    SETTINGS,
    STATS,
    SUGGEST,
    UPKEEP,
    VECTORS,
)
from redline.memory.ask import routes as ask_routes
from redline.memory.ask.service import AskService
from redline.memory.blobs import LocalBlobStore
from redline.memory.documents import MemoryDocuments
from redline.memory.embedding import EmbeddingRunner, load_embedder
from redline.memory.judgments import routes as judgment_routes
from redline.memory.judgments.personal_data import judgment_kinds
from redline.memory.judgments.recorder import JudgmentRecorder
from redline.memory.judgments.service import JudgmentService
from redline.memory.knowledge import routes as knowledge_routes
from redline.memory.knowledge.conversion import ChunkSizes
from redline.memory.knowledge.files import Limits
from redline.memory.knowledge.intake import IntakeService
from redline.memory.knowledge.links import LinkSigner
from redline.memory.knowledge.revisions import Conversion, RevisionService
from redline.memory.knowledge.service import KnowledgeService
from redline.memory.knowledge.storage import SCHEMA
from redline.memory.knowledge.subscribers import follow_directory_deletions
from redline.memory.knowledge.worker import IngestWorker
from redline.memory.patterns import routes as pattern_routes
from redline.memory.patterns.service import PatternService
from redline.memory.profiles import routes as profile_routes
from redline.memory.profiles.service import ProfileService
from redline.memory.settings import MemorySettings
from redline.memory.stats import routes as stats_routes
from redline.memory.stats.service import StatsService
from redline.memory.suggest import routes as suggest_routes
from redline.memory.suggest.service import SuggestService
from redline.memory.upkeep import routes as upkeep_routes
from redline.memory.upkeep.service import UpkeepService
from redline.memory.vectors import JUDGMENTS as JUDGMENT_VECTORS
from redline.memory.vectors import KNOWLEDGE as KNOWLEDGE_VECTORS
from redline.memory.vectors import VectorStore
from redline.memory.vectors.edge import EdgeVectorStore
from redline.memory.vectors.server import ServerVectorStore
from redline.proto.subjects import (
    COMMENT_EVENTS,
    CONSUMER_MEMORY_JUDGMENTS,
    WORKFLOW_DECISIONS,
)
from redline.runtime.access import ACCESS_CLIENT
from redline.runtime.app import ServicePlugin, build_app
from redline.runtime.document_migration import take_part_in_document_migration
from redline.runtime.keys import derive_key
from redline.runtime.personal_data import take_part_in_personal_data
from redline.runtime.resources import BUS, HOLDER, POOL, SECRET_KEY
from redline.runtime.tasks import running

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"


@contextlib.asynccontextmanager
async def _vector_store(settings: MemorySettings, dimension: int) -> AsyncIterator[VectorStore]:
    if settings.qdrant_url:
        client = AsyncQdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key)
        server = ServerVectorStore(client)
        try:
            for collection in (KNOWLEDGE_VECTORS, JUDGMENT_VECTORS):
                await server.ensure(collection, dimension)
            yield server
        finally:
            await server.close()
        return
    directory = Path(settings.vector_dir or Path(settings.data_dir) / "qdrant")
    edge = EdgeVectorStore(directory, settings.vector_copy_rows)
    try:
        for collection in (KNOWLEDGE_VECTORS, JUDGMENT_VECTORS):
            await edge.ensure(collection, dimension)
        yield edge
    finally:
        await edge.close()


def _knowledge(
    app: web.Application, blobs: LocalBlobStore, vectors: VectorStore, embedding: EmbeddingRunner
) -> IngestWorker:
    """The knowledge base's services (uploads, sources, revisions) on `app`, and the worker that
    ingests its files, with one set of chunk sizes and file limits for both."""
    settings = app[SETTINGS]
    signer = LinkSigner(derive_key(app[SECRET_KEY], "memory-links"))
    app[INTAKE] = IntakeService(
        app[POOL],
        blobs,
        signer,
        app[ACCESS_CLIENT],
        upload_ttl_s=settings.upload_url_ttl_s,
        max_outstanding_uploads=settings.max_outstanding_uploads,
        max_outstanding_ingests=settings.max_outstanding_ingests,
    )
    app[KNOWLEDGE] = KnowledgeService(
        app[POOL],
        blobs,
        vectors,
        embedding,
        signer,
        download_ttl_s=settings.download_url_ttl_s,
    )
    limits = Limits(max_chunks=settings.max_chunks_per_file)
    sizes = ChunkSizes(
        settings.chunk_target_tokens,
        settings.chunk_max_tokens,
        settings.chunk_overlap_tokens,
    )
    app[REVISIONS] = RevisionService(
        app[POOL],
        blobs,
        vectors,
        embedding,
        Conversion(
            sizes,
            limits,
            timeout_s=settings.ingest_convert_timeout_s,
            memory_mb=settings.ingest_convert_memory_mb,
        ),
    )
    return IngestWorker(
        app[POOL],
        blobs,
        vectors,
        embedding,
        sizes=sizes,
        limits=limits,
        holder=app[HOLDER],
        concurrency=settings.ingest_concurrency,
        lease_s=settings.ingest_lease_s,
        max_attempts=settings.ingest_max_attempts,
        convert_timeout_s=settings.ingest_convert_timeout_s,
        convert_memory_mb=settings.ingest_convert_memory_mb,
    )


@contextlib.asynccontextmanager
async def _memory(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    embedder = await asyncio.to_thread(load_embedder, settings.embedding_model)
    embedding = EmbeddingRunner(embedder, settings.embedding_batch_size)
    blobs = LocalBlobStore(Path(settings.blob_dir or Path(settings.data_dir) / "blobs"))
    try:
        async with _vector_store(settings, embedder.dimension) as vectors:
            app[VECTORS] = vectors
            worker = _knowledge(app, blobs, vectors, embedding)
            app[JUDGMENTS] = JudgmentService(app[POOL], vectors, embedding)
            app[PATTERNS] = PatternService(app[POOL])
            app[ASK] = AskService(app[JUDGMENTS], app[KNOWLEDGE])
            app[STATS] = StatsService(app[POOL], app[PATTERNS])
            app[PROFILES] = ProfileService(app[POOL])
            app[SUGGEST] = SuggestService(app[POOL], vectors, embedding)
            app[ALERTS] = AlertService(app[POOL])
            app[UPKEEP] = UpkeepService(app[POOL], app[PATTERNS])
            recorder = JudgmentRecorder(app[POOL], vectors, embedding, app[PATTERNS])
            consumer = DurableConsumer(
                app[BUS].js,
                CONSUMER_MEMORY_JUDGMENTS,
                recorder.handle,
                filter_subjects=[COMMENT_EVENTS, *WORKFLOW_DECISIONS],
            )
            async with (
                running(worker.run(), name="knowledge-ingest"),
                running(consumer.run(), name=CONSUMER_MEMORY_JUDGMENTS),
                running(
                    sweep_forever(app[POOL], settings.alert_check_interval_s),
                    name="memory-alert-check",
                ),
            ):
                yield
    finally:
        embedding.close()


def plugin(settings: MemorySettings) -> ServicePlugin:
    def setup(app: web.Application) -> None:
        app[SETTINGS] = settings
        add_endpoints(app, knowledge_routes.ENDPOINTS)
        add_endpoints(app, judgment_routes.ENDPOINTS)
        add_endpoints(app, pattern_routes.ENDPOINTS)
        add_endpoints(app, ask_routes.ENDPOINTS)
        add_endpoints(app, stats_routes.ENDPOINTS)
        add_endpoints(app, profile_routes.ENDPOINTS)
        add_endpoints(app, suggest_routes.ENDPOINTS)
        add_endpoints(app, alert_routes.ENDPOINTS)
        add_endpoints(app, upkeep_routes.ENDPOINTS)
        knowledge_routes.add_link_routes(app)
        # The model, the vector store, the knowledge service and its ingest worker, the
        # judgment, pattern and ask services and the memory-judgments consumer.
        app.cleanup_ctx.append(_memory)
        app.cleanup_ctx.append(follow_directory_deletions)
        app.cleanup_ctx.append(
            take_part_in_document_migration(SCHEMA, lambda app: MemoryDocuments(app[VECTORS]))
        )
        app.cleanup_ctx.append(
            take_part_in_personal_data(SCHEMA, lambda app: judgment_kinds(app[VECTORS]))
        )

    return ServicePlugin(name=SCHEMA, setup=setup, migrations=MIGRATIONS)


def create_app(settings: MemorySettings) -> web.Application:
    return build_app(settings, [plugin(settings)])
