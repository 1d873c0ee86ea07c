"""The server backend: a Qdrant server or cluster through `qdrant-client`'s async client
(REDLINE_QDRANT_URL), the path a deployment takes when it outgrows one machine. Tests run it
against qdrant-client's local mode, which speaks the same API."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from qdrant_client import AsyncQdrantClient, models

from redline.memory.vectors.store import (
    TENANT_FIELDS,
    Collection,
    VectorFilter,
    VectorHit,
    VectorPoint,
)


def server_filter(where: VectorFilter) -> models.Filter:
    must: list[Any] = [
        models.FieldCondition(
            key="workspaceId", match=models.MatchValue(value=where.tenant.workspace_id)
        ),
        models.FieldCondition(key="apiKey", match=models.MatchValue(value=where.tenant.api_key)),
    ]
    must += [
        models.FieldCondition(key=k, match=models.MatchValue(value=v))
        for k, v in where.equals.items()
    ]
    must += [
        models.FieldCondition(key=k, match=models.MatchAny(any=v)) for k, v in where.any_of.items()
    ]
    must += [
        models.FieldCondition(key=k, range=models.Range(gte=low, lte=high))
        for k, (low, high) in where.between.items()
    ]
    must_not: list[Any] = [
        models.FieldCondition(key=k, match=models.MatchAny(any=v))
        for k, v in where.none_of.items()
        if v
    ]
    return models.Filter(must=must, must_not=must_not or None)


class ServerVectorStore:
    def __init__(self, client: AsyncQdrantClient) -> None:
        self._client = client

    async def ensure(self, collection: Collection, dimension: int) -> None:
        if await self._client.collection_exists(collection.name):
            return
        await self._client.create_collection(
            collection.name,
            vectors_config={
                name: models.VectorParams(size=dimension, distance=models.Distance.COSINE)
                for name in collection.vectors
            },
        )
        await self._client.create_payload_index(
            collection.name,
            TENANT_FIELDS[0],
            field_schema=models.KeywordIndexParams(
                type=models.KeywordIndexType.KEYWORD, is_tenant=True
            ),
        )
        for name in (TENANT_FIELDS[1], *collection.keyword_fields):
            await self._client.create_payload_index(
                collection.name, name, field_schema=models.PayloadSchemaType.KEYWORD
            )
        for name in collection.integer_fields:
            await self._client.create_payload_index(
                collection.name, name, field_schema=models.PayloadSchemaType.INTEGER
            )

    async def upsert(self, collection: Collection, points: list[VectorPoint]) -> None:
        if not points:
            return
        await self._client.upsert(
            collection.name,
            points=[
                models.PointStruct(
                    id=p.id,
                    vector={name: v.tolist() for name, v in p.vectors.items()},
                    payload=p.payload,
                )
                for p in points
            ],
            wait=True,
        )

    async def search(
        self,
        collection: Collection,
        vector_name: str,
        vector: npt.NDArray[np.float32],
        where: VectorFilter,
        limit: int,
    ) -> list[VectorHit]:
        found = await self._client.query_points(
            collection.name,
            query=vector.tolist(),
            using=vector_name,
            query_filter=server_filter(where),
            limit=limit,
            with_payload=True,
        )
        return [VectorHit(str(p.id), float(p.score), dict(p.payload or {})) for p in found.points]

    async def delete(self, collection: Collection, where: VectorFilter) -> None:
        await self._client.delete(
            collection.name,
            points_selector=models.FilterSelector(filter=server_filter(where)),
            wait=True,
        )

    async def set_payload(
        self, collection: Collection, where: VectorFilter, payload: dict[str, Any]
    ) -> None:
        await self._client.set_payload(
            collection.name,
            payload=payload,
            points=models.FilterSelector(filter=server_filter(where)),
            wait=True,
        )

    async def count(self, collection: Collection, where: VectorFilter) -> int:
        counted = await self._client.count(
            collection.name, count_filter=server_filter(where), exact=True
        )
        return counted.count

    async def close(self) -> None:
        await self._client.close()
