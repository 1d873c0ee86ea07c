"""The vector backends answer alike: the embedded engine (searched through its in-process copies
of the tenants' points, and through the engine itself) and qdrant-client (through its local
mode, which speaks the server's API) return the same nearest points for the same filters,
after any writes, and none lets a tenant see another's points."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from qdrant_client import AsyncQdrantClient

from redline.memory.vectors import (
    KNOWLEDGE,
    Tenant,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorStore,
    point_id,
)
from redline.memory.vectors.edge import EdgeVectorStore
from redline.memory.vectors.server import ServerVectorStore

DIMENSION = 32
ALICE = Tenant("ws-a", "key-a")
BOB = Tenant("ws-b", "key-b")


@pytest.fixture(params=["edge", "edge engine alone", "qdrant-client"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[VectorStore]:
    backend: VectorStore
    if request.param == "edge":
        backend = EdgeVectorStore(tmp_path / "vectors")
    elif request.param == "edge engine alone":
        # No room for copies: every search is the engine's scan.
        backend = EdgeVectorStore(tmp_path / "vectors", copy_rows=0)
    else:
        backend = ServerVectorStore(AsyncQdrantClient(location=":memory:"))
    await backend.ensure(KNOWLEDGE, DIMENSION)
    yield backend
    await backend.close()


def _points(tenant: Tenant, vectors: np.ndarray, sources: list[str]) -> list[VectorPoint]:
    return [
        VectorPoint(
            point_id(tenant.api_key, sources[i], str(i)),
            {"text": vectors[i]},
            {
                "workspaceId": tenant.workspace_id,
                "apiKey": tenant.api_key,
                "sourceId": sources[i],
                "kind": "chunk",
                "text": f"passage {i}",
                "createdAt": i,
            },
        )
        for i in range(len(sources))
    ]


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


async def test_search_ranks_as_exact_cosine_within_the_filter(store: VectorStore) -> None:
    rng = np.random.default_rng(7)
    vectors = _unit(rng.standard_normal((300, DIMENSION)))
    sources = [f"src-{i % 3}" for i in range(300)]
    await store.upsert(KNOWLEDGE, _points(ALICE, vectors, sources))
    query = _unit(rng.standard_normal((1, DIMENSION)))[0]
    where = VectorFilter(tenant=ALICE, any_of={"sourceId": ["src-0", "src-2"]})

    hits = await store.search(KNOWLEDGE, "text", query, where, 10)

    allowed = [i for i, s in enumerate(sources) if s in ("src-0", "src-2")]
    expected = sorted(allowed, key=lambda i: -float(vectors[i] @ query))[:10]
    assert [h.payload["text"] for h in hits] == [f"passage {i}" for i in expected]
    assert [round(h.similarity, 4) for h in hits] == [
        round(float(vectors[i] @ query), 4) for i in expected
    ]


async def test_a_tenant_never_sees_another_tenants_points(store: VectorStore) -> None:
    same = _unit(np.ones((1, DIMENSION)))
    await store.upsert(KNOWLEDGE, _points(ALICE, same, ["src-0"]))
    await store.upsert(KNOWLEDGE, _points(BOB, same, ["src-0"]))

    hits = await store.search(KNOWLEDGE, "text", same[0], VectorFilter(tenant=BOB), 10)

    assert [h.payload["apiKey"] for h in hits] == ["key-b"]
    assert await store.count(KNOWLEDGE, VectorFilter(tenant=ALICE)) == 1


async def test_upserting_again_keeps_one_point_and_delete_takes_only_its_filter(
    store: VectorStore,
) -> None:
    rng = np.random.default_rng(3)
    vectors = _unit(rng.standard_normal((20, DIMENSION)))
    sources = ["src-a"] * 10 + ["src-b"] * 10
    await store.upsert(KNOWLEDGE, _points(ALICE, vectors, sources))
    await store.upsert(KNOWLEDGE, _points(ALICE, vectors, sources))
    assert await store.count(KNOWLEDGE, VectorFilter(tenant=ALICE)) == 20

    await store.delete(KNOWLEDGE, VectorFilter(tenant=ALICE, equals={"sourceId": "src-a"}))

    assert await store.count(KNOWLEDGE, VectorFilter(tenant=ALICE)) == 10
    left = await store.search(KNOWLEDGE, "text", vectors[0], VectorFilter(tenant=ALICE), 20)
    assert {h.payload["sourceId"] for h in left} == {"src-b"}


async def test_set_payload_changes_only_the_points_under_the_filter(store: VectorStore) -> None:
    vectors = _unit(np.random.default_rng(5).standard_normal((4, DIMENSION)))
    await store.upsert(KNOWLEDGE, _points(ALICE, vectors, ["src-a", "src-a", "src-b", "src-b"]))

    await store.set_payload(
        KNOWLEDGE, VectorFilter(tenant=ALICE, equals={"sourceId": "src-a"}), {"sourceId": "src-c"}
    )

    moved = VectorFilter(tenant=ALICE, equals={"sourceId": "src-c"})
    assert await store.count(KNOWLEDGE, moved) == 2
    assert (
        await store.count(KNOWLEDGE, VectorFilter(tenant=ALICE, equals={"sourceId": "src-b"})) == 2
    )


async def test_both_backends_return_the_same_top_results(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    vectors = _unit(rng.standard_normal((500, DIMENSION)))
    sources = [f"src-{i % 5}" for i in range(500)]
    queries = _unit(rng.standard_normal((20, DIMENSION)))
    edge = EdgeVectorStore(tmp_path / "edge")
    server = ServerVectorStore(AsyncQdrantClient(location=":memory:"))
    answers: list[list[list[str]]] = []
    for backend in (edge, server):
        await backend.ensure(KNOWLEDGE, DIMENSION)
        await backend.upsert(KNOWLEDGE, _points(ALICE, vectors, sources))
        where = VectorFilter(tenant=ALICE, none_of={"sourceId": ["src-4"]}, between={})
        answers.append(
            [[h.id for h in await backend.search(KNOWLEDGE, "text", q, where, 5)] for q in queries]
        )
        await backend.close()
    assert answers[0] == answers[1]


def _hits(found: list[VectorHit]) -> list[tuple[str, float, str]]:
    return [(h.id, round(h.similarity, 4), h.payload["sourceId"]) for h in found]


async def test_the_copies_answer_as_the_engine_after_any_writes(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    copies = EdgeVectorStore(tmp_path / "copies")
    engine = EdgeVectorStore(tmp_path / "engine", copy_rows=0)
    for backend in (copies, engine):
        await backend.ensure(KNOWLEDGE, DIMENSION)
    filters = [
        VectorFilter(tenant=ALICE),
        VectorFilter(tenant=ALICE, equals={"kind": "chunk"}),
        VectorFilter(tenant=ALICE, any_of={"sourceId": ["src-1", "src-3", "src-none"]}),
        VectorFilter(tenant=ALICE, none_of={"sourceId": ["src-2"]}, equals={"kind": "rule"}),
        VectorFilter(tenant=ALICE, between={"createdAt": (20, 60)}),
        VectorFilter(tenant=ALICE, between={"createdAt": (None, 30)}, none_of={"sourceId": []}),
    ]
    for step in range(30):
        sources = [f"src-{rng.integers(5)}" for _ in range(20)]
        # Ids repeat across steps: a write of an id already there replaces it.
        written = _points(ALICE, _unit(rng.standard_normal((20, DIMENSION))), sources)
        written = [
            VectorPoint(
                point_id("key-a", str(rng.integers(120))),
                p.vectors,
                {
                    **p.payload,
                    "kind": "chunk" if rng.random() < 0.7 else "rule",
                    "createdAt": int(rng.integers(100)),
                },
            )
            for p in written
        ]
        for backend in (copies, engine):
            await backend.upsert(KNOWLEDGE, written)
            if step % 4 == 1:
                await backend.delete(
                    KNOWLEDGE, VectorFilter(tenant=ALICE, equals={"sourceId": f"src-{step % 5}"})
                )
            if step % 4 == 3:
                await backend.set_payload(
                    KNOWLEDGE,
                    VectorFilter(tenant=ALICE, any_of={"sourceId": ["src-0"]}),
                    {"kind": "rule", "sourceId": "src-3"},
                )
        query = _unit(rng.standard_normal((1, DIMENSION)))[0]
        for where in filters:
            found = [
                _hits(await backend.search(KNOWLEDGE, "text", query, where, 7))
                for backend in (copies, engine)
            ]
            assert found[0] == found[1], (step, where)
        for where in filters[:3]:
            counts = [await backend.count(KNOWLEDGE, where) for backend in (copies, engine)]
            assert counts[0] == counts[1]
    await copies.close()
    await engine.close()


async def test_the_copies_hold_at_most_their_bound_and_answer_beyond_it(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    store = EdgeVectorStore(tmp_path / "vectors", copy_rows=60)
    await store.ensure(KNOWLEDGE, DIMENSION)
    vectors = {t: _unit(rng.standard_normal((50, DIMENSION))) for t in (ALICE, BOB)}
    for tenant, rows in vectors.items():
        await store.upsert(KNOWLEDGE, _points(tenant, rows, [f"src-{i % 3}" for i in range(50)]))
    # Each tenant fits alone, not both: searching one after the other swaps them, and every
    # answer is each tenant's own nearest point, itself.
    for _ in range(3):
        for tenant, rows in vectors.items():
            found = await store.search(KNOWLEDGE, "text", rows[7], VectorFilter(tenant=tenant), 1)
            assert [h.id for h in found] == [point_id(tenant.api_key, "src-1", "7")]
    await store.close()


async def test_a_write_through_another_store_of_the_directory_reaches_the_copies(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(8)
    rows = _unit(rng.standard_normal((4, DIMENSION)))
    searching, writing = EdgeVectorStore(tmp_path / "v"), EdgeVectorStore(tmp_path / "v")
    for store in (searching, writing):
        await store.ensure(KNOWLEDGE, DIMENSION)
    await writing.upsert(KNOWLEDGE, _points(ALICE, rows[:2], ["src-0", "src-1"]))
    everything = VectorFilter(tenant=ALICE)
    assert len(await searching.search(KNOWLEDGE, "text", rows[0], everything, 10)) == 2
    # The API and the ingest worker of one process each have a store of the same directory.
    await writing.upsert(KNOWLEDGE, _points(ALICE, rows, ["src-0", "src-1", "src-2", "src-3"]))
    await writing.delete(KNOWLEDGE, VectorFilter(tenant=ALICE, equals={"sourceId": "src-0"}))
    found = await searching.search(KNOWLEDGE, "text", rows[0], everything, 10)
    assert sorted(h.payload["sourceId"] for h in found) == ["src-1", "src-2", "src-3"]
    await searching.close()
    await writing.close()


async def test_a_copy_loading_while_its_tenant_is_written_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(9)
    store = EdgeVectorStore(tmp_path / "v")
    await store.ensure(KNOWLEDGE, DIMENSION)
    rows = _unit(rng.standard_normal((301, DIMENSION)))
    await store.upsert(KNOWLEDGE, _points(ALICE, rows[:300], ["src-0"] * 300))
    everything = VectorFilter(tenant=ALICE)
    # The load has read the engine and the write lands before the copy would be kept.
    read, written = threading.Event(), threading.Event()
    load = EdgeVectorStore._load

    def load_then_wait(self: EdgeVectorStore, *args: Any) -> Any:
        copy = load(self, *args)
        read.set()
        written.wait(10)
        return copy

    monkeypatch.setattr(EdgeVectorStore, "_load", load_then_wait)
    loading = asyncio.create_task(store.search(KNOWLEDGE, "text", rows[0], everything, 1))
    await asyncio.to_thread(read.wait, 10)
    late = _points(ALICE, rows[300:], ["src-9"])[0]
    await store.upsert(KNOWLEDGE, [late])
    written.set()
    await loading
    found = await store.search(KNOWLEDGE, "text", rows[300], everything, 1)
    assert [h.id for h in found] == [late.id]
    await store.close()
