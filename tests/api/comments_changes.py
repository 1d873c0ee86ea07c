"""Helpers of the tests of the changing comments endpoints: stored rows read back, events read
from the stream, failures checked, and user tokens of document editors and viewers."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

from redline.comments.shared import storage
from redline.comments.shared.columns import sync_columns
from redline.proto.annotation import Annotation
from redline.testing.api import ApiClient, Workspace
from tests.api.comments_rows import insert, row
from tests.api.stream_support import published

__all__ = ["insert", "row"]


def synced(annotation: storage.AnnotationRow) -> storage.AnnotationRow:
    """The row with its columns recomputed after a test edited its body (its JSON, which the
    row keeps typed from then on)."""
    annotation.body = msgspec.convert(annotation.body, Annotation)
    sync_columns(annotation)
    return annotation


async def stored(database_url: str, ws: Workspace, annotation_id: str) -> dict[str, Any] | None:
    """The stored row of an annotation, every column, or None."""
    conn = await asyncpg.connect(database_url)
    try:
        record = await conn.fetchrow(
            "SELECT * FROM comments.annotation WHERE api_key = $1 AND annotation_id = $2",
            ws.api_key,
            annotation_id,
        )
    finally:
        await conn.close()
    if record is None:
        return None
    found = dict(record)
    found["body"] = (
        msgspec.json.decode(found["body"]) if isinstance(found["body"], str) else found["body"]
    )
    return found


async def events(database_url: str, nats_url: str, ws: Workspace) -> list[dict[str, Any]]:
    """Events the comments service published for the workspace's key, oldest first."""
    found = [
        msgspec.json.decode(payload)
        for _, payload in await published(database_url, nats_url, "comments")
    ]
    return [event for event in found if event.get("apiKey") == ws.api_key]


async def views(database_url: str, ws: Workspace, annotation_id: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        count: int = await conn.fetchval(
            "SELECT count(*) FROM comments.annotation_view"
            " WHERE api_key = $1 AND annotation_id = $2",
            ws.api_key,
            annotation_id,
        )
    finally:
        await conn.close()
    return count


async def add_view(database_url: str, ws: Workspace, annotation_id: str, user_id: str) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(
            "INSERT INTO comments.annotation_view VALUES ($1, 'acme', $2, $3, 1)",
            ws.api_key,
            annotation_id,
            user_id,
        )
    finally:
        await conn.close()


async def user_headers(api: ApiClient, ws: Workspace, user_id: str, role: str) -> dict[str, str]:
    """Headers of a user token of `user_id`, a member of document acme/d1 with `role`."""
    added = await api.post(
        "/v2/users/add",
        {
            "organizationId": "acme",
            "createOrganization": True,
            "documentId": "d1",
            "createDocument": True,
            "users": [{"userId": user_id, "accessRole": role}],
        },
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body
    generated = await api.post(
        "/v2/auth/generate_token", {"userId": user_id}, headers=ws.key_headers
    )
    assert generated.status == 200, generated.body
    return {"x-redline-api-key": ws.api_key, "x-redline-auth-token": generated.data["token"]}
