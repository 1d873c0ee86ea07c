"""Sentence embeddings: one small interface, the models behind it, and the runner that keeps
them off the event loop."""

from redline.memory.embedding.embedder import Embedder, EmbeddingFailed, load_embedder
from redline.memory.embedding.runner import EmbeddingRunner

__all__ = ["Embedder", "EmbeddingFailed", "EmbeddingRunner", "load_embedder"]
