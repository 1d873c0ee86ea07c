"""Annotation rows written straight into the comments table, for tests of the read endpoints:
bodies shaped as the get endpoint returns them, with the filter columns in step."""

from __future__ import annotations

import datetime
from typing import Any

from redline.comments.shared import storage
from redline.pg import Connection, create_pool
from redline.testing.api import Workspace


def user(user_id: str) -> dict[str, Any]:
    return {"userId": user_id, "name": user_id.title(), "email": f"{user_id}@example.com"}


def comment(comment_id: int, author: str, text: str, at_ms: int) -> dict[str, Any]:
    iso = datetime.datetime.fromtimestamp(at_ms / 1000, datetime.UTC).isoformat()
    return {
        "commentId": comment_id,
        "type": "text",
        "status": "added",
        "isDraft": False,
        "isCommentTextAvailable": True,
        "commentText": text,
        "commentHtml": f"<p>{text}</p>",
        "createdAt": at_ms,
        "lastUpdated": iso,
        "from": user(author),
        "to": [],
        "taggedUserContacts": [],
        "attachments": [],
        "reactionAnnotationIds": [],
        "reactionAnnotations": [],
        "sourceType": "rest-api",
    }


def row(
    ws: Workspace,
    annotation_id: str,
    *,
    org: str = "acme",
    doc: str = "d1",
    number: int = 1,
    author: str = "alice",
    at: int = 1_700_000_000_000,
    updated: int | None = None,
    location: str | None = None,
    status: str | None = None,
    assignee: str | None = None,
    resolved_by: str | None = None,
    mentions: tuple[str, ...] = (),
    visibility: str = "public",
    visible_to: tuple[str, ...] = (),
    agent: dict[str, Any] | None = None,
    suggestion: str | None = None,
    replies: tuple[str, ...] = (),
) -> storage.AnnotationRow:
    """One annotation; `agent` is its agent block, `suggestion` its suggestion status."""
    last = updated if updated is not None else at
    text = " ".join(["Look", *(f"{{{{{m}}}}}" for m in mentions)])
    comments = [comment(1, author, text, at)]
    comments += [comment(i + 2, r, "reply", at) for i, r in enumerate(replies)]
    kind = "suggestion" if suggestion is not None or agent is not None else "comment"
    body: dict[str, Any] = {
        "annotationId": annotation_id,
        "annotationNumber": number,
        "annotationIndex": number,
        "type": kind,
        "sourceType": "agent" if agent else "rest-api",
        "createdAt": at,
        "lastUpdated": last,
        "hasDraftComments": False,
        "visibilityConfig": {
            "type": visibility,
            **({"userIds": list(visible_to)} if visible_to else {}),
        },
        "metadata": {"apiKey": ws.api_key, "organizationId": org, "documentId": doc},
        "from": user(author),
        "comments": comments,
    }
    if location is not None:
        body["locationId"] = location
        body["location"] = {"id": location}
    if status is not None:
        body["status"] = {"id": status, "name": status.title(), "type": "default"}
    if assignee is not None:
        body["assignedTo"] = user(assignee)
    if kind == "suggestion":
        body["suggestion"] = {"status": suggestion or "pending"}
    if agent is not None:
        body["agent"] = agent
    return storage.AnnotationRow(
        api_key=ws.api_key,
        organization_id=org,
        document_id=doc,
        annotation_id=annotation_id,
        annotation_number=number,
        type=kind,
        source_type="agent" if agent else "rest-api",
        suggestion_status=(suggestion or "pending") if kind == "suggestion" else None,
        status_id=status,
        status_type="default" if status else None,
        location_id=location,
        creator_user_id=author,
        assigned_user_id=assignee,
        resolved_by=resolved_by,
        visibility=visibility,
        visible_to=list(visible_to),
        mentioned_user_ids=list(mentions),
        commenter_user_ids=list(dict.fromkeys([author, *replies])),
        agent_id=None if agent is None else agent.get("agentId"),
        agent_type=None if agent is None else agent.get("agentType"),
        agent_source=None if agent is None else agent.get("agentSource"),
        execution_id=None if agent is None else agent.get("executionId"),
        created_at=at,
        last_updated=last,
        body=body,
    )


# The service writes annotations one at a time; tests and benchmarks seed thousands at once.
_INSERT = (
    f"INSERT INTO comments.annotation ({', '.join(storage.COLUMNS)})"  # noqa: S608
    f" VALUES ({', '.join(f'${i}' for i in range(1, len(storage.COLUMNS) + 1))})"
)


async def insert_rows(conn: Connection, rows: list[storage.AnnotationRow]) -> None:
    """Store `rows` as they are, in one statement: what seeding a test or benchmark needs."""
    await conn.executemany(_INSERT, [[getattr(r, c) for c in storage.COLUMNS] for r in rows])


async def insert(database_url: str, rows: list[storage.AnnotationRow]) -> None:
    # The services' pool: it knows how the rows' JSON columns are encoded.
    pool = await create_pool(database_url, max_size=1)
    try:
        async with pool.acquire() as conn:
            await insert_rows(conn, rows)
    finally:
        await pool.close()
