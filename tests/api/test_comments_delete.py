"""Deleting annotations (by id, location, author, agent, fresh agent suggestions) and comments
(some, all, the root), their events and view records, tenancy and user tokens."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.comments_changes import (
    add_view,
    events,
    insert,
    row,
    stored,
    user_headers,
    views,
)

DELETE = "/v2/commentannotations/delete"
DELETE_COMMENTS = "/v2/commentannotations/comments/delete"
DELETE_COMMENTS_V1 = "/v1/commentannotations/comments/delete"
AGENT = {"agentId": "spell", "agentType": "built-in", "agentSource": "svc", "executionId": "e1"}


async def delete(api: ApiClient, ws: Workspace, **data: Any) -> Any:
    return await api.post(
        DELETE, {"organizationId": "acme", "documentId": "d1", **data}, headers=ws.key_headers
    )


async def delete_comments(api: ApiClient, ws: Workspace, **data: Any) -> Any:
    return await api.post(
        DELETE_COMMENTS,
        {"organizationId": "acme", "documentId": "d1", "annotationId": "a1", **data},
        headers=ws.key_headers,
    )


async def test_delete_by_ids_reports_each_and_emits_events(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("delete@example.com")
    await insert(database_url, [row(ws, "a1"), row(ws, "a2", number=2)])
    await add_view(database_url, ws, "a1", "bob")

    deleted = await delete(api, ws, annotationIds=["a1", "nope"])

    assert deleted.status == 200, deleted.body
    assert deleted.data == {
        "a1": {"success": True, "id": "a1", "message": "Deleted Successfully"},
        "nope": {"success": False, "id": "nope", "message": "Annotation not found."},
    }
    assert await stored(database_url, ws, "a1") is None
    assert await stored(database_url, ws, "a2") is not None
    assert await views(database_url, ws, "a1") == 0
    emitted = await events(database_url, nats_url, ws)
    assert [e["type"] for e in emitted] == ["comments.comment_annotation.delete"]
    assert emitted[0]["annotationId"] == "a1"
    assert emitted[0]["annotation"]["comments"][0]["commentText"] == "Look"


async def test_delete_by_location_author_and_agent_filters(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("filters@example.com")
    await insert(
        database_url,
        [
            row(ws, "loc", number=1, location="v1"),
            row(ws, "bobs", number=2, author="bob"),
            row(ws, "agent-fresh", number=3, agent=AGENT),
            row(ws, "agent-done", number=4, agent=AGENT, suggestion="accepted"),
            row(ws, "other-agent", number=5, agent={**AGENT, "agentId": "tone"}),
        ],
    )

    by_location = await delete(api, ws, locationIds=["v1"])
    assert set(by_location.data) == {"loc"}
    by_author = await delete(api, ws, userIds=["bob"])
    assert set(by_author.data) == {"bobs"}
    fresh = await delete(api, ws, agentSuggestions=True, agentId="spell")
    assert set(fresh.data) == {"agent-fresh"}
    by_agent = await delete(api, ws, agentId="spell")
    assert set(by_agent.data) == {"agent-done"}
    assert await stored(database_url, ws, "other-agent") is not None


async def test_delete_by_the_pages_agents_worked_on(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("agentpages@example.com")
    page = {**AGENT, "url": "https://app.example.com/doc/1#intro"}
    await insert(
        database_url,
        [
            row(ws, "on-page", number=1, agent=page),
            row(ws, "other-page", number=2, agent={**AGENT, "url": "https://app.example.com/2"}),
            row(ws, "by-hand", number=3),
        ],
    )

    blank = await delete(api, ws, agentUrls=[" ", "#only-a-fragment"])
    other_agent = await delete(api, ws, agentUrls=["https://app.example.com/doc/1"], agentId="x")
    on_page = await delete(api, ws, agentUrls=["https://app.example.com/doc/1#elsewhere"])

    issue = assert_failure(blank, 400, "INVALID_ARGUMENT")["details"]["issues"][0]
    assert issue["path"] == "data.agentUrls"
    assert other_agent.data == {}
    assert set(on_page.data) == {"on-page"}
    assert await stored(database_url, ws, "other-page") is not None
    assert await stored(database_url, ws, "by-hand") is not None


async def test_delete_without_filters_clears_the_document_only(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("all@example.com")
    await insert(
        database_url, [row(ws, "a1"), row(ws, "a2", number=2), row(ws, "elsewhere", doc="d2")]
    )

    deleted = await delete(api, ws)

    assert set(deleted.data) == {"a1", "a2"}
    assert await stored(database_url, ws, "elsewhere") is not None


async def test_another_workspace_cannot_delete(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    owner = await api.create_workspace("a@example.com")
    intruder = await api.create_workspace("b@example.com")
    await insert(database_url, [row(owner, "a1", replies=("bob",))])

    attempt = await delete(api, intruder, annotationIds=["a1"])
    assert attempt.data == {
        "a1": {"success": False, "id": "a1", "message": "Annotation not found."}
    }
    comments = await delete_comments(api, intruder, commentIds=[2])
    assert_failure(comments, 404, "NOT_FOUND")
    assert await stored(database_url, owner, "a1") is not None
    for side in (owner, intruder):
        assert await events(database_url, nats_url, side) == []


async def test_comments_delete_is_served_under_v1_too(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("deletev1@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob", "carol"))])

    deleted = await api.post(
        DELETE_COMMENTS_V1,
        {"organizationId": "acme", "documentId": "d1", "annotationId": "a1", "commentIds": [3]},
        headers=ws.key_headers,
    )

    assert deleted.status == 200, deleted.body
    assert deleted.data == {"3": {"success": True, "id": 3, "message": "Deleted successfully"}}
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert [c["commentId"] for c in kept["body"]["comments"]] == [1, 2]


async def test_delete_replies_keeps_the_thread(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("replies@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob", "carol"))])

    deleted = await delete_comments(api, ws, commentIds=[2, 99])

    assert deleted.status == 200, deleted.body
    assert deleted.data == {
        "2": {"success": True, "id": 2, "message": "Deleted successfully"},
        "99": {"success": False, "id": 99, "message": "Comment not found."},
    }
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert [c["commentId"] for c in kept["body"]["comments"]] == [1, 3]
    assert kept["commenter_user_ids"] == ["alice", "carol"]
    assert kept["body"]["lastUpdated"] > 1_700_000_000_000
    emitted = await events(database_url, nats_url, ws)
    assert [e["type"] for e in emitted] == ["comments.comment.delete"]
    assert emitted[0]["commentId"] == 2
    assert emitted[0]["comment"]["from"]["userId"] == "bob"
    assert len(emitted[0]["before"]["comments"]) == 3


async def test_deleting_the_root_comment_deletes_the_thread(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("root@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",))])
    await add_view(database_url, ws, "a1", "bob")

    deleted = await delete_comments(api, ws, commentIds=[1])

    assert deleted.data == {"1": {"success": True, "id": 1, "message": "Deleted successfully"}}
    assert await stored(database_url, ws, "a1") is None
    assert await views(database_url, ws, "a1") == 0
    assert [e["type"] for e in await events(database_url, nats_url, ws)] == [
        "comments.comment.delete",
        "comments.comment_annotation.delete",
    ]


async def test_deleting_all_comments_when_none_are_named(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("allcomments@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",))])

    deleted = await delete_comments(api, ws)

    assert set(deleted.data) == {"1", "2"}
    assert await stored(database_url, ws, "a1") is None


async def test_comments_delete_narrowed_to_authors(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("byauthor@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob", "carol", "bob"))])

    bobs = await delete_comments(api, ws, userIds=["bob"])
    named = await delete_comments(api, ws, commentIds=[1, 3], userIds=["carol"])

    assert set(bobs.data) == {"2", "4"}
    assert named.data == {
        "1": {"success": False, "id": 1, "message": "Comment not found."},
        "3": {"success": True, "id": 3, "message": "Deleted successfully"},
    }
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert [c["commentId"] for c in kept["body"]["comments"]] == [1]


async def test_user_tokens_need_the_editor_role(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("tokens@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",)), row(ws, "a2", number=2)])
    editor = await user_headers(api, ws, "ed", "editor")
    viewer = await user_headers(api, ws, "vi", "viewer")
    data = {"organizationId": "acme", "documentId": "d1", "annotationIds": ["a2"]}

    assert_failure(await api.post(DELETE, data, headers=viewer), 403, "PERMISSION_DENIED")
    comments = {**data, "annotationId": "a1", "commentIds": [2]}
    del comments["annotationIds"]
    assert_failure(
        await api.post(DELETE_COMMENTS, comments, headers=viewer), 403, "PERMISSION_DENIED"
    )

    allowed = await api.post(DELETE, data, headers=editor)
    assert allowed.status == 200, allowed.body
    assert allowed.data["a2"]["success"] is True
    removed = await api.post(DELETE_COMMENTS, comments, headers=editor)
    assert removed.status == 200, removed.body
    assert removed.data["2"]["success"] is True
