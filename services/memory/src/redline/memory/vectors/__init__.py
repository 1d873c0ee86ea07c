"""Vectors in Qdrant: one interface, two backends (the embedded engine and a Qdrant server)."""

from redline.memory.vectors.store import (
    JUDGMENTS,
    KNOWLEDGE,
    Collection,
    Tenant,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorStore,
    point_id,
    tenant_of,
)

__all__ = [
    "JUDGMENTS",
    "KNOWLEDGE",
    "Collection",
    "Tenant",
    "VectorFilter",
    "VectorHit",
    "VectorPoint",
    "VectorStore",
    "point_id",
    "tenant_of",
]
