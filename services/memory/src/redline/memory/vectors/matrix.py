"""Tenants' points as matrices in this process, for the embedded backend's searches.

The embedded engine answers a filtered search by an exact scan it runs holding the GIL (12.5 ms
at 100,000 chunks, where a matrix product over the same vectors takes about 3 ms). The process
that owns an embedded directory is the only writer of its points, so it can keep a copy of a
tenant's points in step with every write it makes, and scan that: a product of the tenant's
matrix with the query (in a worker thread: numpy releases the GIL) and the filter evaluated on
columns of the indexed payload fields.

The engine stays the source of the points: a tenant is loaded from it at its first search, a
write to a loaded tenant is applied to both, and anything the matrix cannot answer exactly as
the engine would (a filter on a field it does not hold, a payload value that is not a plain
string or number) is left to the engine. The copies of all tenants together hold at most
`max_rows` points; the least recently searched go first.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from redline.memory.vectors.store import Collection, Tenant, VectorFilter, VectorHit, VectorPoint

Matrix = npt.NDArray[np.float32]

# Points held in copies at most, unless configured (REDLINE_VECTOR_COPY_ROWS): about 300 MB.
DEFAULT_COPY_ROWS = 200_000
# How long a tenant whose copy could not be made or was put out is searched by the engine.
RELOAD_AFTER_S = 60.0


class Unsupported(Exception):
    """The matrix cannot answer this exactly as the engine would."""


def _normalised(vector: npt.NDArray[Any]) -> Matrix:
    row = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(row))
    return row / norm if norm > 0 else row


class TenantPoints:
    """One tenant's points of one collection: vectors by name, the payloads, and a column per
    filtered payload field. A point written again takes a new row and its old row is marked
    gone, so a search reading the arrays in a worker thread never sees a row half written."""

    def __init__(self, collection: Collection, dimension: int) -> None:
        self._collection = collection
        self._dimension = dimension
        self._size = 0
        self._vectors = {name: np.zeros((16, dimension), np.float32) for name in collection.vectors}
        self._alive = np.zeros(16, bool)
        self._ids: list[str] = []
        self._payloads: list[dict[str, Any]] = []
        self._row_of: dict[str, int] = {}
        # Keyword fields as codes (-1: absent), integer fields as floats (NaN: absent).
        self._codes: dict[str, dict[str, int]] = {f: {} for f in collection.keyword_fields}
        self._keywords = {f: np.full(16, -1, np.int32) for f in collection.keyword_fields}
        self._integers = {f: np.full(16, np.nan) for f in collection.integer_fields}

    @property
    def points(self) -> int:
        return len(self._row_of)

    def put(self, points: Iterable[VectorPoint]) -> None:
        for point in points:
            self._put(point)

    def _put(self, point: VectorPoint) -> None:
        if set(point.vectors) != set(self._collection.vectors):
            raise Unsupported("a point without every named vector")
        old = self._row_of.get(point.id)
        if old is not None:
            self._alive[old] = False
        if self._size == len(self._alive):
            self._grow()
        row = self._size
        for name, vector in point.vectors.items():
            self._vectors[name][row] = _normalised(vector)
        self._set_columns(row, point.payload)
        self._ids.append(point.id)
        self._payloads.append(dict(point.payload))
        self._row_of[point.id] = row
        self._alive[row] = True
        self._size = row + 1

    def _grow(self) -> None:
        """Room for more rows: the live rows alone when at least half are gone, else twice the
        room. Always into new arrays and lists: a scan under way keeps reading the ones it
        took."""
        live = np.flatnonzero(self._alive[: self._size])
        capacity = len(self._alive) if len(live) <= self._size // 2 else 2 * len(self._alive)

        def moved(array: npt.NDArray[Any], fill: Any) -> npt.NDArray[Any]:
            bigger = np.full((capacity, *array.shape[1:]), fill, array.dtype)
            bigger[: len(live)] = array[live]
            return bigger

        self._vectors = {name: moved(v, 0) for name, v in self._vectors.items()}
        self._alive = moved(self._alive, False)
        self._keywords = {f: moved(c, -1) for f, c in self._keywords.items()}
        self._integers = {f: moved(c, np.nan) for f, c in self._integers.items()}
        self._ids = [self._ids[r] for r in live]
        self._payloads = [self._payloads[r] for r in live]
        self._row_of = {point_id: row for row, point_id in enumerate(self._ids)}
        self._size = len(live)

    def _set_columns(self, row: int, payload: dict[str, Any]) -> None:
        for field, column in self._keywords.items():
            value = payload.get(field)
            if value is None:
                column[row] = -1
            elif isinstance(value, str):
                column[row] = self._codes[field].setdefault(value, len(self._codes[field]))
            else:
                raise Unsupported(f"payload field {field} holds {type(value).__name__}")
        for field, numbers in self._integers.items():
            value = payload.get(field)
            if value is None:
                numbers[row] = np.nan
            elif isinstance(value, int | float) and not isinstance(value, bool):
                numbers[row] = float(value)
            else:
                raise Unsupported(f"payload field {field} holds {type(value).__name__}")

    def matching(self, where: VectorFilter) -> npt.NDArray[np.bool_]:
        """The rows (of the first `size`) that are alive and pass the filter's conditions
        beyond the tenant, as the engine evaluates them."""
        size = self._size
        mask = self._alive[:size].copy()
        for field, value in where.equals.items():
            mask &= self._keyword_in(field, [value], size)
        for field, values in where.any_of.items():
            mask &= self._keyword_in(field, values, size)
        for field, values in where.none_of.items():
            if values:
                mask &= ~self._keyword_in(field, values, size)
        for field, (low, high) in where.between.items():
            if field not in self._integers:
                raise Unsupported(f"a range on {field}")
            numbers = self._integers[field][:size]
            with np.errstate(invalid="ignore"):
                inside = ~np.isnan(numbers)
                if low is not None:
                    inside &= numbers >= low
                if high is not None:
                    inside &= numbers <= high
            mask &= inside
        return mask

    def _keyword_in(self, field: str, values: list[Any], size: int) -> npt.NDArray[np.bool_]:
        if field not in self._keywords or not all(isinstance(v, str) for v in values):
            raise Unsupported(f"a match on {field}")
        codes = [self._codes[field][v] for v in values if v in self._codes[field]]
        return np.isin(self._keywords[field][:size], codes)

    def remove(self, where: VectorFilter) -> None:
        for row in np.flatnonzero(self.matching(where)):
            self._alive[row] = False
            del self._row_of[self._ids[row]]

    def set_payload(self, where: VectorFilter, payload: dict[str, Any]) -> None:
        for row in np.flatnonzero(self.matching(where)):
            merged = {**self._payloads[row], **payload}
            self._set_columns(int(row), merged)
            self._payloads[row] = merged

    def scan(self, vector_name: str, where: VectorFilter) -> Scan:
        """What a search of these points reads, taken now: the rows passing the filter and the
        arrays and lists they are in, which later writes replace rather than change."""
        mask = self.matching(where)
        return Scan(self._vectors[vector_name][: len(mask)], mask, self._ids, self._payloads)


class Scan:
    def __init__(
        self,
        vectors: Matrix,
        mask: npt.NDArray[np.bool_],
        ids: list[str],
        payloads: list[dict[str, Any]],
    ) -> None:
        self._vectors, self._mask, self._ids, self._payloads = vectors, mask, ids, payloads

    def nearest(self, vector: npt.NDArray[np.float32], limit: int) -> list[VectorHit]:
        """The `limit` nearest rows, nearest first, with cosine scores (safe in a worker
        thread: it reads only what the scan took)."""
        found = int(self._mask.sum())
        if found == 0 or limit <= 0:
            return []
        scores = self._vectors @ _normalised(vector)
        scores[~self._mask] = -np.inf
        k = min(limit, found)
        nearest = np.argpartition(-scores, k - 1)[:k]
        nearest = nearest[np.argsort(-scores[nearest], kind="stable")]
        return [VectorHit(self._ids[r], float(scores[r]), dict(self._payloads[r])) for r in nearest]


class TenantMatrices:
    """The copies of one collection's tenants, at most `max_rows` points together, least
    recently searched out first. A tenant that could not be copied (larger than the bound,
    holding what a copy cannot answer, written while it loaded) or was put out to make room is
    not loaded again for RELOAD_AFTER_S: loading reads every point of the tenant from the
    engine, and two tenants searched in turn beyond the bound must not make every search a
    load."""

    def __init__(self, max_rows: int) -> None:
        self.max_rows = max_rows
        self._held: OrderedDict[Tenant, TenantPoints] = OrderedDict()
        self._refused_until: dict[Tenant, float] = {}

    def get(self, tenant: Tenant) -> TenantPoints | None:
        points = self._held.get(tenant)
        if points is not None:
            self._held.move_to_end(tenant)
        return points

    def may_load(self, tenant: Tenant) -> bool:
        if self.max_rows <= 0:
            return False
        until = self._refused_until.get(tenant)
        if until is None:
            return True
        if time.monotonic() < until:
            return False
        del self._refused_until[tenant]
        return True

    def refuse(self, tenant: Tenant) -> None:
        self._refused_until[tenant] = time.monotonic() + RELOAD_AFTER_S

    def keep(self, tenant: Tenant, points: TenantPoints) -> bool:
        """Hold a loaded copy, making room; False when it alone is beyond the bound."""
        if self.max_rows <= 0 or points.points > self.max_rows:
            self.refuse(tenant)
            return False
        self._held[tenant] = points
        while sum(p.points for p in self._held.values()) > self.max_rows:
            evicted, _ = self._held.popitem(last=False)
            self.refuse(evicted)
        return True

    def drop(self, tenant: Tenant) -> None:
        self._held.pop(tenant, None)

    def clear(self) -> None:
        self._held.clear()
        self._refused_until.clear()
