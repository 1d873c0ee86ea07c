"""The vector store interface: what memory asks of Qdrant, whichever Qdrant it is.

Every point carries its tenant (`workspaceId` and `apiKey`) in its payload, indexed, and every
read or delete takes a `Tenant` that the backend turns into a filter on both: there is no call
that reaches across tenants. Points have ids derived from what they stand for (`point_id`), so
writing the same chunk twice leaves one point.
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol

import msgspec
import numpy as np
import numpy.typing as npt

from redline.envelope import ApiKeyPrincipal

# Ids of points are UUIDv5 under this namespace.
_NAMESPACE = uuid.UUID("6f1c1e04-5b0a-4d5e-9a43-4c0e2f1d7a10")

TENANT_FIELDS = ("workspaceId", "apiKey")


class Collection(msgspec.Struct, frozen=True):
    name: str
    # Named dense vectors of the points (a judgment has a `review` and a `content` vector).
    vectors: tuple[str, ...]
    # Payload fields filtered on besides the tenant (keyword index) ...
    keyword_fields: tuple[str, ...] = ()
    # ... and integer fields filtered on by range.
    integer_fields: tuple[str, ...] = ()


KNOWLEDGE = Collection(
    "knowledge", ("text",), keyword_fields=("sourceId", "kind"), integer_fields=("createdAt",)
)

JUDGMENTS = Collection(
    "judgments",
    ("review", "content"),
    keyword_fields=(
        "organizationId",
        "documentId",
        "annotationId",
        "decision",
        "judgeType",
        "contentType",
        "reviewerId",
    ),
    integer_fields=("createdAt",),
)


class Tenant(msgspec.Struct, frozen=True):
    workspace_id: str
    api_key: str


def tenant_of(principal: ApiKeyPrincipal) -> Tenant:
    return Tenant(principal.workspace_id, principal.api_key)


class VectorFilter(msgspec.Struct, frozen=True, kw_only=True):
    """Conditions on payload fields, all of which must hold, always within one tenant."""

    tenant: Tenant
    equals: dict[str, str | int | bool] = {}
    any_of: dict[str, list[str]] = {}
    none_of: dict[str, list[str]] = {}
    # field -> (lowest, highest), either end open when None
    between: dict[str, tuple[int | None, int | None]] = {}


class VectorPoint(msgspec.Struct, frozen=True):
    id: str
    vectors: dict[str, npt.NDArray[np.float32]]
    payload: dict[str, Any]


class VectorHit(msgspec.Struct, frozen=True):
    id: str
    # Cosine similarity: 1 is the same direction.
    similarity: float
    payload: dict[str, Any]


def point_id(*parts: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, "\x1f".join(parts)))


def tenant_payload(tenant: Tenant) -> dict[str, str]:
    return {"workspaceId": tenant.workspace_id, "apiKey": tenant.api_key}


class VectorStore(Protocol):
    async def ensure(self, collection: Collection, dimension: int) -> None:
        """Create the collection and its payload indexes if they are missing."""

    async def upsert(self, collection: Collection, points: list[VectorPoint]) -> None: ...

    async def search(
        self,
        collection: Collection,
        vector_name: str,
        vector: npt.NDArray[np.float32],
        where: VectorFilter,
        limit: int,
    ) -> list[VectorHit]:
        """The `limit` nearest points under `where`, closest first."""

    async def delete(self, collection: Collection, where: VectorFilter) -> None: ...

    async def set_payload(
        self, collection: Collection, where: VectorFilter, payload: dict[str, Any]
    ) -> None:
        """Set `payload`'s fields on every point under `where`."""

    async def count(self, collection: Collection, where: VectorFilter) -> int: ...

    async def close(self) -> None: ...
