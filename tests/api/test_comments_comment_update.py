"""Updating one comment: text, HTML, tagged users and the {{userId}} rule, statuses and times,
the event, tenancy and user tokens."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.comments_changes import (
    events,
    insert,
    row,
    stored,
    user_headers,
)

UPDATE = "/v2/commentannotations/comments/update"


def change(comment_id: int = 2, **data: Any) -> dict[str, Any]:
    return {
        "organizationId": "acme",
        "documentId": "d1",
        "annotationId": "a1",
        "commentId": comment_id,
        **data,
    }


async def update(api: ApiClient, ws: Workspace, data: dict[str, Any]) -> Any:
    return await api.post(UPDATE, data, headers=ws.key_headers)


async def test_update_text_and_tagged_users(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("edit@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",))])
    tagged = [{"userId": "dave", "contact": {"userId": "dave", "name": "Dave"}}]

    updated = await update(
        api,
        ws,
        change(
            commentText="ping {{dave}}",
            commentHtml="<p>ping {{dave}}</p>",
            taggedUserContacts=tagged,
        ),
    )

    assert updated.status == 200, updated.body
    assert updated.data == {"success": True, "id": 2, "message": "Updated successfully"}
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    comment = kept["body"]["comments"][1]
    assert comment["commentText"] == "ping {{dave}}"
    assert comment["commentHtml"] == "<p>ping {{dave}}</p>"
    assert comment["taggedUserContacts"] == tagged
    assert comment["status"] == "updated"
    assert comment["lastUpdated"].endswith("Z")
    assert comment["lastUpdated"] > "2023-11-14T22:13:20"
    assert kept["body"]["comments"][0]["status"] == "added"
    assert kept["mentioned_user_ids"] == ["dave"]
    assert kept["last_updated"] == kept["body"]["lastUpdated"] > 1_700_000_000_000
    emitted = await events(database_url, nats_url, ws)
    assert [e["type"] for e in emitted] == ["comments.comment.update"]
    assert emitted[0]["commentId"] == 2
    assert emitted[0]["comment"]["commentText"] == "ping {{dave}}"
    assert emitted[0]["before"]["comments"][1]["commentText"] == "reply"


async def test_mentions_need_tagged_contacts(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("mentions@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",))])

    untagged = await update(api, ws, change(commentText="hi {{erin}}"))
    error = assert_failure(untagged, 400, "INVALID_ARGUMENT")
    assert error["details"]["issues"][0]["path"] == "data.taggedUserContacts"
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert kept["body"]["comments"][1]["commentText"] == "reply"
    assert await events(database_url, nats_url, ws) == []


async def test_missing_comment_annotation_and_other_workspace(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    owner = await api.create_workspace("a@example.com")
    intruder = await api.create_workspace("b@example.com")
    await insert(database_url, [row(owner, "a1", replies=("bob",))])

    assert_failure(await update(api, owner, change(9, commentText="x")), 404, "NOT_FOUND")
    assert_failure(
        await update(api, owner, {**change(commentText="x"), "annotationId": "zz"}),
        404,
        "NOT_FOUND",
    )
    assert_failure(await update(api, intruder, change(commentText="x")), 404, "NOT_FOUND")
    for side in (owner, intruder):
        assert await events(database_url, nats_url, side) == []


async def test_user_tokens_edit_their_own_comments_as_editors(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("tokens@example.com")
    await insert(database_url, [row(ws, "a1", replies=("ed", "vi"))])
    editor = await user_headers(api, ws, "ed", "editor")
    viewer = await user_headers(api, ws, "vi", "viewer")

    denied = await api.post(UPDATE, change(3, commentText="mine"), headers=viewer)
    assert_failure(denied, 403, "PERMISSION_DENIED")
    not_theirs = await api.post(UPDATE, change(1, commentText="alice's"), headers=editor)
    assert_failure(not_theirs, 403, "PERMISSION_DENIED")
    allowed = await api.post(UPDATE, change(2, commentText="mine"), headers=editor)
    assert allowed.status == 200, allowed.body
