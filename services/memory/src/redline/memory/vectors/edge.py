"""The embedded backend: Qdrant's engine in this process (`qdrant-edge-py`), one shard per
collection under a directory.

The engine's calls block, so they run on worker threads. It holds the GIL while it works:
searches take a millisecond or two, but building an HNSW index (`optimize`) would stop the
whole process for tens of seconds to minutes at 100,000 points. So the serving process never
builds one: a search is an exact scan of the tenant's points found through the payload index
(every query filters on the tenant), which is fast for a tenant's knowledge base and exact. A
deployment whose tenants outgrow that points REDLINE_QDRANT_URL at a Qdrant server, which
builds its indexes in its own process.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import qdrant_edge as qe

from redline.memory.vectors.store import (
    TENANT_FIELDS,
    Collection,
    VectorFilter,
    VectorHit,
    VectorPoint,
)

# The engine locks its directory: apps of one process that name the same directory (tests
# restarting a service in place) share one opened shard, closed with the last of them.
_open_shards: dict[Path, tuple[qe.EdgeShard, int]] = {}


def edge_filter(where: VectorFilter) -> qe.Filter:
    must: list[Any] = [
        qe.FieldCondition(key="workspaceId", match=qe.MatchValue(where.tenant.workspace_id)),
        qe.FieldCondition(key="apiKey", match=qe.MatchValue(where.tenant.api_key)),
    ]
    must += [qe.FieldCondition(key=k, match=qe.MatchValue(v)) for k, v in where.equals.items()]
    must += [qe.FieldCondition(key=k, match=qe.MatchAny(v)) for k, v in where.any_of.items()]
    must += [
        qe.FieldCondition(key=k, range=qe.RangeFloat(gte=low, lte=high))
        for k, (low, high) in where.between.items()
    ]
    must_not: list[Any] = [
        qe.FieldCondition(key=k, match=qe.MatchAny(v)) for k, v in where.none_of.items() if v
    ]
    return qe.Filter(must=must, must_not=must_not or None)


class EdgeVectorStore:
    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._shards: dict[str, qe.EdgeShard] = {}

    def _shard(self, collection: Collection) -> qe.EdgeShard:
        return self._shards[collection.name]

    async def ensure(self, collection: Collection, dimension: int) -> None:
        if collection.name not in self._shards:
            self._shards[collection.name] = await asyncio.to_thread(
                self._open, collection, dimension
            )

    def _open(self, collection: Collection, dimension: int) -> qe.EdgeShard:
        path = (self._directory / collection.name).resolve()
        shard, users = _open_shards.get(path, (None, 0))
        if shard is None:
            shard = self._load_or_create(path, collection, dimension)
        _open_shards[path] = (shard, users + 1)
        return shard

    @staticmethod
    def _release(path: Path) -> None:
        shard, users = _open_shards.pop(path)
        if users > 1:
            _open_shards[path] = (shard, users - 1)
        else:
            shard.close()

    def _load_or_create(self, path: Path, collection: Collection, dimension: int) -> qe.EdgeShard:
        if (path / "edge_config.json").exists():
            return qe.EdgeShard.load(str(path))
        config = qe.EdgeConfig(
            vectors={
                name: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)
                for name in collection.vectors
            },
        )
        shard = qe.EdgeShard.create(str(path), config)
        shard.update(
            qe.UpdateOperation.create_field_index(
                TENANT_FIELDS[0], qe.KeywordIndexParams(is_tenant=True)
            )
        )
        for name in (TENANT_FIELDS[1], *collection.keyword_fields):
            shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword))
        for name in collection.integer_fields:
            shard.update(
                qe.UpdateOperation.create_field_index(
                    name, qe.IntegerIndexParams(lookup=True, range=True)
                )
            )
        return shard

    async def upsert(self, collection: Collection, points: list[VectorPoint]) -> None:
        if not points:
            return
        shard = self._shard(collection)
        edge_points = [
            qe.Point(p.id, {name: v.tolist() for name, v in p.vectors.items()}, p.payload)
            for p in points
        ]

        def write() -> None:
            shard.update(qe.UpdateOperation.upsert_points(edge_points))
            shard.flush()

        await asyncio.to_thread(write)

    async def search(
        self,
        collection: Collection,
        vector_name: str,
        vector: npt.NDArray[np.float32],
        where: VectorFilter,
        limit: int,
    ) -> list[VectorHit]:
        request = qe.QueryRequest(
            query=qe.Query.Nearest(vector.tolist(), using=vector_name),
            filter=edge_filter(where),
            limit=limit,
            with_payload=True,
            with_vector=False,
        )
        found = await asyncio.to_thread(self._shard(collection).query, request)
        return [VectorHit(str(p.id), float(p.score), dict(p.payload or {})) for p in found]

    async def delete(self, collection: Collection, where: VectorFilter) -> None:
        shard = self._shard(collection)

        def remove() -> None:
            shard.update(qe.UpdateOperation.delete_points_by_filter(edge_filter(where)))
            shard.flush()

        await asyncio.to_thread(remove)

    async def set_payload(
        self, collection: Collection, where: VectorFilter, payload: dict[str, Any]
    ) -> None:
        shard = self._shard(collection)

        def write() -> None:
            shard.update(qe.UpdateOperation.set_payload_by_filter(edge_filter(where), payload))
            shard.flush()

        await asyncio.to_thread(write)

    async def count(self, collection: Collection, where: VectorFilter) -> int:
        request = qe.CountRequest(filter=edge_filter(where), exact=True)
        counted: int = await asyncio.to_thread(self._shard(collection).count, request)
        return counted

    async def close(self) -> None:
        names, self._shards = list(self._shards), {}
        for name in names:
            path = (self._directory / name).resolve()
            await asyncio.to_thread(self._release, path)
