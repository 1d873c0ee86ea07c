"""Requests and looks at stored rows that the comments add tests share."""

from __future__ import annotations

import json
from typing import Any

import asyncpg

from redline.proto.events import decode_event
from redline.proto.events.comments import CommentsEvent
from redline.testing.api import ApiClient, Response, Workspace
from tests.api.stream_support import published

ADD = "/v2/commentannotations/add"
ADD_COMMENTS = "/v2/commentannotations/comments/add"
STATUS = {
    "id": "open",
    "name": "Open",
    "type": "ongoing",
    "color": "#112233",
    "lightColor": "#aabbcc",
    "svg": "<svg/>",
}
PRIORITY = {"id": "p1", "name": "High", "color": "#ff0000", "lightColor": "#ffeeee"}
REASON = {"title": "Typo", "description": "Misspelt word", "severity": "low"}


def comment(user: str = "alice", text: str = "Hello", **extra: Any) -> dict[str, Any]:
    return {"from": {"userId": user}, "commentText": text, **extra}


def annotation(*comments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"commentData": list(comments) or [comment()], **extra}


async def add(
    api: ApiClient,
    ws: Workspace,
    *annotations: dict[str, Any],
    headers: dict[str, str] | None = None,
    **data: Any,
) -> Response:
    body = {
        "organizationId": "acme",
        "documentId": "d1",
        "createOrganization": True,
        "createDocument": True,
        "commentAnnotations": list(annotations) or [annotation()],
        **data,
    }
    return await api.post(ADD, body, headers=headers or ws.key_headers)


async def add_comments(
    api: ApiClient, ws: Workspace, annotation_id: str, *comments: dict[str, Any], **data: Any
) -> Response:
    headers = data.pop("headers", None) or ws.key_headers
    body = {
        "organizationId": "acme",
        "documentId": "d1",
        "annotationId": annotation_id,
        "commentData": list(comments),
        **data,
    }
    return await api.post(ADD_COMMENTS, body, headers=headers)


async def stored(db: asyncpg.Connection, ws: Workspace, annotation_id: str) -> dict[str, Any]:
    record = await db.fetchrow(
        "SELECT *, body::text AS body_text FROM comments.annotation"
        " WHERE api_key = $1 AND annotation_id = $2",
        ws.api_key,
        annotation_id,
    )
    assert record is not None
    return {**dict(record), "body": json.loads(record["body_text"])}


async def events(database_url: str, nats_url: str, ws: Workspace) -> list[CommentsEvent]:
    """The comments events of the workspace's key on the stream, oldest first."""
    found = [
        decode_event(payload) for _, payload in await published(database_url, nats_url, "comments")
    ]
    return [e for e in found if isinstance(e, CommentsEvent) and e.apiKey == ws.api_key]
