"""The embedded backend: Qdrant's engine in this process (`qdrant-edge-py`), one shard per
collection under a directory.

The engine's calls block, so they run on worker threads. It holds the GIL while it works:
searches take a millisecond or two, but building an HNSW index (`optimize`) would stop the
whole process for tens of seconds to minutes at 100,000 points. So the serving process never
builds one: a search is an exact scan of the tenant's points found through the payload index
(every query filters on the tenant), which is fast for a tenant's knowledge base and exact. A
deployment whose tenants outgrow that points REDLINE_QDRANT_URL at a Qdrant server, which
builds its indexes in its own process.

Searches read copies of the tenants' points kept in this process (`matrix`), which is faster
than the engine's scan and leaves the GIL; the engine stays the store they are loaded from and
every write goes to first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import qdrant_edge as qe

from redline.memory.vectors.matrix import (
    DEFAULT_COPY_ROWS,
    TenantMatrices,
    TenantPoints,
    Unsupported,
)
from redline.memory.vectors.store import (
    TENANT_FIELDS,
    Collection,
    Tenant,
    VectorFilter,
    VectorHit,
    VectorPoint,
)

# Points read from the engine per call while a tenant's copy is loaded.
_LOAD_PAGE = 2_000


@dataclass
class _OpenShard:
    """An opened shard, with the copies of its tenants' points and the lock that keeps them in
    step, for every store of the process naming its directory."""

    shard: qe.EdgeShard
    users: int
    copies: TenantMatrices
    # Writes one at a time, so copies take them in the engine's order.
    writing: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Per tenant, a count of writes begun and ended (odd: one under way): a copy loaded while
    # the count moved may have missed a write, and is not kept.
    writes: dict[Tenant, int] = field(default_factory=dict)
    # Copies being loaded, which the tenant's other searches wait for rather than load again.
    loading: dict[Tenant, asyncio.Future[TenantPoints | None]] = field(default_factory=dict)


# The engine locks its directory: apps of one process that name the same directory (tests
# restarting a service in place, the API and the ingest worker) share one opened shard and its
# copies, closed with the last of them.
_open_shards: dict[Path, _OpenShard] = {}


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


def _named_vectors(vector: Any) -> dict[str, npt.NDArray[np.float32]]:
    """A record's named dense vectors, as the collections here hold them."""
    if not isinstance(vector, dict):
        raise Unsupported("a point without named vectors")
    return {name: np.asarray(v, np.float32) for name, v in vector.items()}


def _putting(points: list[VectorPoint]) -> Callable[[TenantPoints], None]:
    return lambda copy: copy.put(points)


class EdgeVectorStore:
    def __init__(self, directory: Path, copy_rows: int = DEFAULT_COPY_ROWS) -> None:
        self._directory = directory
        self._copy_rows = copy_rows
        self._shards: dict[str, _OpenShard] = {}
        self._dimensions: dict[str, int] = {}

    def _shard(self, collection: Collection) -> qe.EdgeShard:
        return self._shards[collection.name].shard

    async def ensure(self, collection: Collection, dimension: int) -> None:
        self._dimensions[collection.name] = dimension
        if collection.name not in self._shards:
            self._shards[collection.name] = await asyncio.to_thread(
                self._open, collection, dimension
            )

    def _open(self, collection: Collection, dimension: int) -> _OpenShard:
        path = (self._directory / collection.name).resolve()
        opened = _open_shards.get(path)
        if opened is None:
            shard = self._load_or_create(path, collection, dimension)
            opened = _open_shards[path] = _OpenShard(shard, 0, TenantMatrices(self._copy_rows))
        opened.users += 1
        return opened

    @staticmethod
    def _release(path: Path) -> None:
        opened = _open_shards[path]
        opened.users -= 1
        if opened.users == 0:
            del _open_shards[path]
            opened.copies.clear()
            opened.shard.close()

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

        by_tenant: dict[Tenant, list[VectorPoint]] = {}
        for p in points:
            tenant = Tenant(str(p.payload.get("workspaceId")), str(p.payload.get("apiKey")))
            by_tenant.setdefault(tenant, []).append(p)
        await self._write(collection, write, {t: _putting(w) for t, w in by_tenant.items()})

    async def _write(
        self,
        collection: Collection,
        write: Callable[[], None],
        changes: dict[Tenant, Callable[[TenantPoints], None]],
    ) -> None:
        """Make a write in the engine, then the same change to each tenant's copy held."""
        opened = self._shards[collection.name]
        async with opened.writing:
            for tenant in changes:
                opened.writes[tenant] = opened.writes.get(tenant, 0) + 1
            try:
                await asyncio.to_thread(write)
            except BaseException:
                # Whatever the engine holds now, the copies are not known to hold it.
                for tenant in changes:
                    opened.copies.drop(tenant)
                raise
            finally:
                for tenant in changes:
                    opened.writes[tenant] += 1
            for tenant, change in changes.items():
                copy = opened.copies.get(tenant)
                if copy is None:
                    continue
                try:
                    change(copy)
                except Unsupported:
                    opened.copies.drop(tenant)

    async def search(
        self,
        collection: Collection,
        vector_name: str,
        vector: npt.NDArray[np.float32],
        where: VectorFilter,
        limit: int,
    ) -> list[VectorHit]:
        copy = await self._copy(collection, where.tenant)
        if copy is not None:
            try:
                scan = copy.scan(vector_name, where)
            except Unsupported:
                pass
            else:
                return await asyncio.to_thread(scan.nearest, vector, limit)
        request = qe.QueryRequest(
            query=qe.Query.Nearest(vector.tolist(), using=vector_name),
            filter=edge_filter(where),
            limit=limit,
            with_payload=True,
            with_vector=False,
        )
        found = await asyncio.to_thread(self._shard(collection).query, request)
        return [VectorHit(str(p.id), float(p.score), dict(p.payload or {})) for p in found]

    async def _copy(self, collection: Collection, tenant: Tenant) -> TenantPoints | None:
        """The tenant's copy, loaded from the engine if it is not held; None when it is not
        held and cannot be now (see `TenantMatrices.may_load`, and a write during the load)."""
        opened = self._shards[collection.name]
        copy = opened.copies.get(tenant)
        if copy is not None or not opened.copies.may_load(tenant):
            return copy
        loading = opened.loading.get(tenant)
        if loading is None:
            loading = asyncio.ensure_future(self._load_copy(collection, tenant))
            opened.loading[tenant] = loading
            loading.add_done_callback(lambda _: opened.loading.pop(tenant, None))
        return await asyncio.shield(loading)

    async def _load_copy(self, collection: Collection, tenant: Tenant) -> TenantPoints | None:
        opened = self._shards[collection.name]
        writes = opened.writes.get(tenant, 0)
        copy = None
        if writes % 2 == 0:
            copy = await asyncio.to_thread(self._load, collection, tenant)
        if copy is None or opened.writes.get(tenant, 0) != writes:
            opened.copies.refuse(tenant)
            return None
        return copy if opened.copies.keep(tenant, copy) else None

    def _load(self, collection: Collection, tenant: Tenant) -> TenantPoints | None:
        shard = self._shard(collection)
        every = edge_filter(VectorFilter(tenant=tenant))
        if (
            shard.count(qe.CountRequest(filter=every, exact=True))
            > self._shards[collection.name].copies.max_rows
        ):
            return None
        copy = TenantPoints(collection, self._dimensions[collection.name])
        offset = None
        while True:
            records, offset = shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=_LOAD_PAGE,
                    filter=every,
                    with_payload=True,
                    with_vector=True,
                )
            )
            try:
                copy.put(
                    VectorPoint(str(r.id), _named_vectors(r.vector), dict(r.payload or {}))
                    for r in records
                )
            except Unsupported:
                return None
            if offset is None:
                return copy

    async def delete(self, collection: Collection, where: VectorFilter) -> None:
        shard = self._shard(collection)

        def remove() -> None:
            shard.update(qe.UpdateOperation.delete_points_by_filter(edge_filter(where)))
            shard.flush()

        await self._write(collection, remove, {where.tenant: lambda copy: copy.remove(where)})

    async def set_payload(
        self, collection: Collection, where: VectorFilter, payload: dict[str, Any]
    ) -> None:
        shard = self._shard(collection)

        def write() -> None:
            shard.update(qe.UpdateOperation.set_payload_by_filter(edge_filter(where), payload))
            shard.flush()

        await self._write(
            collection, write, {where.tenant: lambda copy: copy.set_payload(where, payload)}
        )

    async def count(self, collection: Collection, where: VectorFilter) -> int:
        request = qe.CountRequest(filter=edge_filter(where), exact=True)
        counted: int = await asyncio.to_thread(self._shard(collection).count, request)
        return counted

    async def close(self) -> None:
        names, self._shards = list(self._shards), {}
        for name in names:
            path = (self._directory / name).resolve()
            await asyncio.to_thread(self._release, path)
