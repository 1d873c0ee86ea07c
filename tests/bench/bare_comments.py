"""The baseline of the comments benchmark: a bare aiohttp + asyncpg server doing the same SQL as
the comments service, with nothing around it (no auth, no envelope checks, no access rules).

Run as `python bare_comments.py PORT DATABASE_URL API_KEY ORGANIZATION DOCUMENT STATUS`:
- POST /get answers the get endpoint's statement for one document, one status, 100 per page;
- POST /add inserts one annotation the way the add endpoint's transaction does (reserve a
  number, insert the row, queue two outbox events, notify the relay).
"""

from __future__ import annotations

import secrets
import sys
import time
from typing import Any

import asyncpg
import msgspec
from aiohttp import web

from redline.comments.annotations.storage import AnnotationQuery, annotations_statement

PAGE = 100

_INSERT = (
    "INSERT INTO comments.annotation (api_key, organization_id, document_id, annotation_id,"
    " annotation_number, type, source_type, creator_user_id, created_at, last_updated, body)"
    " VALUES ($1, $2, $3, $4, $5, 'comment', 'rest-api', $6, $7, $7, $8::jsonb)"
    " ON CONFLICT (api_key, organization_id, annotation_id) DO NOTHING"
)
_NUMBER = (
    "INSERT INTO comments.document_counter AS c (api_key, organization_id, document_id,"
    " next_number) VALUES ($1, $2, $3, 2) ON CONFLICT (api_key, organization_id, document_id)"
    " DO UPDATE SET next_number = c.next_number + 1 RETURNING next_number - 1"
)
_OUTBOX = "INSERT INTO comments.outbox (id, subject, payload) VALUES ($1, $2, $3)"


async def add_annotation(
    pool: asyncpg.Pool, api_key: str, org: str, doc: str, entry: dict[str, Any]
) -> str:
    """The add endpoint's writes for one annotation, in one transaction; its new id."""
    now = int(time.time() * 1000)
    annotation_id = secrets.token_urlsafe(15)
    body = {"annotationId": annotation_id, "comments": entry["commentData"]}
    async with pool.acquire() as conn, conn.transaction():
        number = await conn.fetchval(_NUMBER, api_key, org, doc)
        encoded = msgspec.json.encode({**body, "annotationNumber": number}).decode()
        user = entry["commentData"][0]["from"]["userId"]
        await conn.execute(_INSERT, api_key, org, doc, annotation_id, number, user, now, encoded)
        await conn.executemany(
            _OUTBOX,
            [
                (secrets.token_hex(16), "evt.comments.comment_annotation.add", encoded.encode()),
                (secrets.token_hex(16), "evt.comments.comment.add", encoded.encode()),
            ],
        )
        await conn.execute("SELECT pg_notify('redline_outbox', 'comments')")
    return annotation_id


def page(rows: list[asyncpg.Record], size: int) -> bytes:
    """The get endpoint's envelope around the rows' stored JSON, as the service writes it."""
    bodies = b",".join(r["body"].encode() for r in rows[:size])
    more = b',"nextPageToken":"x"' if len(rows) > size else b""
    return b'{"result":{"status":"success","message":"Success","data":[%s]%s}}' % (bodies, more)


def added(annotation_id: str) -> bytes:
    """The add endpoint's answer for one annotation added."""
    result = {annotation_id: {"success": True, "annotationId": annotation_id}}
    return msgspec.json.encode({"result": {"status": "success", "data": result}})


async def keep_session(conn: asyncpg.Connection) -> None:
    """Like the services' pool: no reset query on release, which would cost a round trip."""
    return


def main() -> None:
    port, dsn, api_key, org, doc, status = sys.argv[1:7]
    query = AnnotationQuery(api_key, org, document_ids=[doc], status_ids=[status], limit=PAGE + 1)
    statement, params = annotations_statement(query)
    app = web.Application()

    async def start(app: web.Application) -> None:
        app["pool"] = await asyncpg.create_pool(dsn, min_size=1, max_size=10, reset=keep_session)

    async def get(request: web.Request) -> web.Response:
        await request.read()
        rows = await app["pool"].fetch(statement, *params)
        return web.Response(body=page(rows, PAGE), content_type="application/json")

    async def add(request: web.Request) -> web.Response:
        data = msgspec.json.decode(await request.read())["data"]
        annotation_id = await add_annotation(
            app["pool"], api_key, org, doc, data["commentAnnotations"][0]
        )
        return web.Response(body=added(annotation_id), content_type="application/json")

    app.on_startup.append(start)
    app.router.add_post("/get", get)
    app.router.add_post("/add", add)
    web.run_app(app, host="127.0.0.1", port=int(port), print=None, access_log=None)


if __name__ == "__main__":
    main()
