"""Running an embedder off the event loop, in batches.

Model calls block for tens of milliseconds to seconds; they run on worker threads (the engines
release the GIL and use every core themselves, so the API keeps answering meanwhile). Queries
and passages have a thread each: a search is a person waiting, an ingest background work, and a
query queued behind a batch of passages waited for all of it (seconds on a busy machine, for
every search of every workspace while any one of them ingested). Passages go one call at a
time, the fastest order for a file; queries run beside them (the default model keeps an engine
for each, so neither waits for the other), and at background priority, so that a backlog of
files takes the CPU only when no one waiting wants it.

A query's vector is kept (`QueryVectors`): people search the same words again (a page that
searches as it loads, a retried question), and the model is most of a search's time. The cache
is keyed by tenant as well as text, so no workspace can tell from a search's speed what another
searched.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from redline.memory.background import lower_this_threads_priority
from redline.memory.embedding.embedder import Embedder, EmbeddingFailed, Vectors

# Query vectors kept per process (1.5 KB each at 384 dimensions: about 6 MB), and the longest
# query text kept: longer ones are rare, and each would hold its text as well.
QUERY_VECTORS_KEPT = 4096
QUERY_CHARS_KEPT = 1000


class QueryVectors:
    """The vectors of recent queries, least recently used out first, per (tenant, text)."""

    def __init__(self, capacity: int = QUERY_VECTORS_KEPT) -> None:
        self._capacity = capacity
        self._rows: OrderedDict[tuple[str, str], Vectors] = OrderedDict()

    def get(self, tenant: str, text: str) -> Vectors | None:
        row = self._rows.get((tenant, text))
        if row is not None:
            self._rows.move_to_end((tenant, text))
        return row

    def put(self, tenant: str, text: str, row: Vectors) -> None:
        if len(text) > QUERY_CHARS_KEPT:
            return
        row.setflags(write=False)  # shared by every search that finds it
        self._rows[(tenant, text)] = row
        self._rows.move_to_end((tenant, text))
        while len(self._rows) > self._capacity:
            self._rows.popitem(last=False)


class EmbeddingRunner:
    def __init__(self, embedder: Embedder, batch_size: int = 32) -> None:
        self.embedder = embedder
        self._batch_size = batch_size
        self._query_vectors = QueryVectors()
        self._passages = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="embedding", initializer=lower_this_threads_priority
        )
        self._queries = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedding-query")

    @property
    def dimension(self) -> int:
        return self.embedder.dimension

    async def passages(self, texts: list[str]) -> Vectors:
        return await self._embed(self._passages, self.embedder.embed_passages, texts)

    async def query(self, text: str, *, tenant: str) -> Vectors:
        """The query's vector; `tenant` scopes the cache (see the module's words)."""
        row = self._query_vectors.get(tenant, text)
        if row is None:
            rows = await self._embed(self._queries, self.embedder.embed_queries, [text])
            row = rows[0].copy()
            self._query_vectors.put(tenant, text, row)
        return row

    async def _embed(
        self,
        executor: ThreadPoolExecutor,
        embed: Callable[[list[str]], Vectors],
        texts: list[str],
    ) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        loop = asyncio.get_running_loop()
        parts: list[Vectors] = []
        for start in range(0, len(texts), self._batch_size):
            batch = texts[start : start + self._batch_size]
            try:
                rows = await loop.run_in_executor(executor, embed, batch)
            except EmbeddingFailed:
                raise
            except Exception as exc:
                raise EmbeddingFailed(f"the embedding model failed: {exc}") from exc
            if rows.shape != (len(batch), self.dimension):
                raise EmbeddingFailed(f"the embedding model answered shape {rows.shape}")
            parts.append(rows)
        return np.concatenate(parts)

    def close(self) -> None:
        self._passages.shutdown(wait=False, cancel_futures=True)
        self._queries.shutdown(wait=False, cancel_futures=True)
