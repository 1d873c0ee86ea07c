"""Updating annotations: updatedData applied to what the filters select, the events each kind
of change emits, resolution on terminal statuses, user renames across annotations and comments,
tenancy, and user tokens."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.comments_changes import (
    events,
    insert,
    row,
    stored,
    synced,
    user_headers,
)

UPDATE = "/v2/commentannotations/update"
DONE = {"id": "done", "name": "Done", "type": "terminal", "color": "#0a0", "lightColor": "#efe"}


async def update(api: ApiClient, ws: Workspace, **data: Any) -> Any:
    return await api.post(
        UPDATE, {"organizationId": "acme", "documentId": "d1", **data}, headers=ws.key_headers
    )


async def test_updated_data_applies_to_selected_annotations_and_keeps_columns(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("update@example.com")
    await insert(
        database_url,
        [
            row(ws, "a1", number=1, location="v1", status="open"),
            row(ws, "a2", number=2, location="v2", status="open"),
            row(ws, "other-doc", doc="d2", location="v1"),
        ],
    )

    updated = await update(
        api,
        ws,
        locationIds=["v1"],
        updatedData=[
            {
                "location": {"id": "v9", "locationName": "Version 9"},
                "targetElement": {"elementId": "p1", "targetText": "hello", "occurrence": 1},
                "status": {"id": "review", "name": "In review", "type": "ongoing"},
                "assignedTo": {"userId": "bob", "name": "Bob"},
                "priority": {"id": "p1", "name": "High", "color": "red", "lightColor": "pink"},
                "context": {"ticket": "T-1"},
            }
        ],
    )

    assert updated.status == 200, updated.body
    assert updated.data == {"a1": {"success": True, "id": "a1", "message": "Updated Successfully"}}
    a1 = await stored(database_url, ws, "a1")
    assert a1 is not None
    body = a1["body"]
    assert body["location"] == {"id": "v9", "locationName": "Version 9"}
    assert body["targetElement"] == {"elementId": "p1", "targetText": "hello", "occurrence": 1}
    assert body["status"] == {"id": "review", "name": "In review", "type": "ongoing"}
    assert body["assignedTo"] == {"userId": "bob", "name": "Bob"}
    assert body["priority"]["id"] == "p1"
    assert body["context"] == {"ticket": "T-1"}
    assert body["lastUpdated"] > 1_700_000_000_000
    assert (a1["location_id"], a1["status_id"], a1["status_type"], a1["assigned_user_id"]) == (
        "v9",
        "review",
        "ongoing",
        "bob",
    )
    assert a1["last_updated"] == body["lastUpdated"]
    untouched = await stored(database_url, ws, "a2")
    assert untouched is not None
    assert untouched["body"]["status"]["id"] == "open"
    other = await stored(database_url, ws, "other-doc")
    assert other is not None
    assert "assignedTo" not in other["body"]

    emitted = await events(database_url, nats_url, ws)
    kinds = [e["type"] for e in emitted]
    assert kinds == [
        "comments.comment_annotation.status_change",
        "comments.comment_annotation.assign",
        "comments.comment_annotation.priority_change",
        "comments.comment_annotation.update",
    ]
    status_change = emitted[0]
    assert status_change["oldStatus"]["id"] == "open"
    assert status_change["newStatus"]["id"] == "review"
    assert status_change["before"]["status"]["id"] == "open"
    assert status_change["annotation"]["status"]["id"] == "review"
    assert status_change["apiKey"] == ws.api_key
    assert emitted[1]["assigned"]["userId"] == "bob"
    assert "previouslyAssigned" not in emitted[1] or emitted[1]["previouslyAssigned"] is None
    assert emitted[2]["newPriority"]["id"] == "p1"
    assert emitted[3]["changes"] == ["context", "location", "targetElement"]


async def test_get_filters_see_the_update(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("get@example.com")
    await insert(database_url, [row(ws, "a1", status="open"), row(ws, "a2", number=2)])

    updated = await update(
        api, ws, annotationIds=["a1"], updatedData=[{"status": DONE, "from": {"userId": "carol"}}]
    )
    assert updated.status == 200, updated.body

    async def ids(**query: Any) -> list[str]:
        got = await api.post(
            "/v2/commentannotations/get",
            {"organizationId": "acme", "documentId": "d1", **query},
            headers=ws.key_headers,
        )
        assert got.status == 200, got.body
        return [a["annotationId"] for a in got.data]

    assert await ids(statusIds=["done"]) == ["a1"]
    assert await ids(statusIds=["open"]) == []
    assert await ids(resolvedBy="carol") == ["a1"]
    got = await ids(annotationIds=["a1"])
    assert got == ["a1"]


async def test_updated_data_as_one_object_is_taken_like_a_list_of_one(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("oneobject@example.com")
    await insert(database_url, [row(ws, "a1", status="open"), row(ws, "a2", number=2)])
    # The hosted SDK's UpdateCommentAnnotationsRequest sends one object, as the reference
    # samples do.
    sdk_body = {
        "organizationId": "acme",
        "documentId": "d1",
        "annotationIds": ["a1"],
        "updatedData": {"status": DONE, "from": {"userId": "carol"}, "context": {"k": "v"}},
    }

    updated = await api.post(UPDATE, sdk_body, headers=ws.key_headers)

    assert updated.status == 200, updated.body
    assert updated.data == {"a1": {"success": True, "id": "a1", "message": "Updated Successfully"}}
    a1 = await stored(database_url, ws, "a1")
    assert a1 is not None
    assert a1["body"]["status"]["id"] == "done"
    assert a1["body"]["context"] == {"k": "v"}
    assert a1["resolved_by"] == "carol"


async def test_updated_data_object_is_checked_like_a_list_member(api: ApiClient) -> None:
    ws = await api.create_workspace("badobject@example.com")

    refused = await update(api, ws, updatedData={"status": {"id": "x"}, "nope": 1})

    error = assert_failure(refused, 400, "INVALID_ARGUMENT")
    assert "updatedData" in error["message"]


async def test_filters_by_creator_and_ids_and_reports_missing_ids(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("filters@example.com")
    await insert(
        database_url,
        [row(ws, "a1", author="alice"), row(ws, "a2", number=2, author="bob")],
    )

    updated = await update(
        api,
        ws,
        annotationIds=["a1", "a2", "ghost"],
        userIds=["bob"],
        updatedData=[{"context": {"x": 1}}],
    )

    assert updated.status == 200, updated.body
    assert updated.data == {
        "a2": {"success": True, "id": "a2", "message": "Updated Successfully"},
        "a1": {"success": False, "id": "a1", "message": "Annotation not found."},
        "ghost": {"success": False, "id": "ghost", "message": "Annotation not found."},
    }


async def test_same_status_and_assignee_emit_no_specific_events(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("same@example.com")
    await insert(database_url, [row(ws, "a1", status="open", assignee="bob")])

    updated = await update(
        api,
        ws,
        updatedData=[
            {
                "status": {"id": "open", "name": "Open!", "type": "default"},
                "assignedTo": {"userId": "bob", "name": "Robert"},
            }
        ],
    )

    assert updated.status == 200, updated.body
    assert [e["type"] for e in await events(database_url, nats_url, ws)] == [
        "comments.comment_annotation.update"
    ]


async def test_terminal_status_sets_resolved_by_and_reopening_clears_it(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("resolve@example.com")
    await insert(database_url, [row(ws, "a1", status="open")])

    done = await update(
        api, ws, updatedData=[{"status": DONE, "from": {"userId": "carol", "name": "Carol"}}]
    )
    assert done.status == 200, done.body
    resolved = await stored(database_url, ws, "a1")
    assert resolved is not None
    assert resolved["resolved_by"] == "carol"
    assert resolved["status_type"] == "terminal"
    # `from` is applied to the annotation too, and is the event's acting user.
    assert resolved["body"]["from"] == {"userId": "carol", "name": "Carol"}
    assert (await events(database_url, nats_url, ws))[0]["actionUser"] == {
        "userId": "carol",
        "name": "Carol",
    }

    # Colors are optional on update: the same status keeps them.
    again = await update(api, ws, updatedData=[{"status": {**DONE, "name": "Closed"}}])
    assert again.status == 200, again.body
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert kept["body"]["status"]["color"] == "#0a0"
    assert kept["resolved_by"] == "carol"

    reopened = await update(
        api, ws, updatedData=[{"status": {"id": "open", "name": "Open", "type": "default"}}]
    )
    assert reopened.status == 200, reopened.body
    opened = await stored(database_url, ws, "a1")
    assert opened is not None
    assert opened["resolved_by"] is None


async def test_rename_user_everywhere_in_annotations_and_comments(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("rename@example.com")
    first = row(ws, "a1", author="alice", assignee="alice", mentions=("alice",), replies=("bob",))
    reply = first.body["comments"][1]
    reply["to"] = [{"userId": "alice", "name": "Alice"}]
    reply["taggedUserContacts"] = [
        {"userId": "alice", "contact": {"userId": "alice", "name": "Alice"}, "text": "@Alice"}
    ]
    reply["commentText"] = "thanks {{alice}}"
    reply["reactionAnnotations"] = [
        {
            "annotationId": "r1",
            "type": "reaction",
            "icon": "heart",
            "commentAnnotationId": "a1",
            "lastUpdated": 1,
            "fromUsers": [{"lastUpdated": 1, "from": {"userId": "alice", "name": "Alice"}}],
        }
    ]
    reply["reactionAnnotationIds"] = ["r1"]
    second = row(ws, "a2", number=2, author="bob", replies=("alice",))
    untouched = row(ws, "a3", number=3, author="bob")
    await insert(database_url, [synced(first), second, untouched])

    renamed = await update(
        api,
        ws,
        updateUsers=[
            {
                "oldUser": {"userId": "alice"},
                "newUser": {"userId": "alice2", "name": "Alice Two", "email": "a2@example.com"},
            }
        ],
    )

    assert renamed.status == 200, renamed.body
    assert set(renamed.data) == {"a1", "a2", "a3"}
    a1 = await stored(database_url, ws, "a1")
    assert a1 is not None
    body = a1["body"]
    new_user = {"userId": "alice2", "name": "Alice Two", "email": "a2@example.com"}
    assert body["from"] == new_user
    assert body["assignedTo"] == new_user
    assert body["comments"][0]["from"] == new_user
    assert body["comments"][0]["commentText"] == "Look {{alice2}}"
    assert reply_of(body)["to"] == [
        {"userId": "alice2", "name": "Alice Two", "email": "a2@example.com"}
    ]
    assert reply_of(body)["taggedUserContacts"][0]["userId"] == "alice2"
    assert reply_of(body)["taggedUserContacts"][0]["contact"]["userId"] == "alice2"
    assert reply_of(body)["commentText"] == "thanks {{alice2}}"
    reacted = reply_of(body)["reactionAnnotations"][0]["fromUsers"][0]["from"]
    assert reacted["userId"] == "alice2"
    assert a1["creator_user_id"] == "alice2"
    assert a1["assigned_user_id"] == "alice2"
    assert a1["mentioned_user_ids"] == ["alice2"]
    assert a1["commenter_user_ids"] == ["alice2", "bob"]
    a2 = await stored(database_url, ws, "a2")
    assert a2 is not None
    assert a2["commenter_user_ids"] == ["bob", "alice2"]
    assert a2["body"]["comments"][1]["from"]["userId"] == "alice2"
    emitted = await events(database_url, nats_url, ws)
    assert [e["annotationId"] for e in emitted] == ["a1", "a2"]
    assert all(e["type"] == "comments.comment_annotation.update" for e in emitted)
    assert "updateUsers" in emitted[0]["changes"]


def reply_of(body: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = body["comments"][1]
    return reply


async def test_nothing_to_update_and_bad_fields_are_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace("invalid@example.com")

    empty = await update(api, ws)
    error = assert_failure(empty, 400, "INVALID_ARGUMENT")
    assert error["details"]["issues"][0]["path"] == "data.updatedData"

    bad = await update(api, ws, updatedData=[{"status": {"id": "x", "name": "X", "type": "bogus"}}])
    assert_failure(bad, 400, "INVALID_ARGUMENT")
    unknown = await update(api, ws, updatedData=[{"title": "no"}])
    assert_failure(unknown, 400, "INVALID_ARGUMENT")
    missing = await api.post(UPDATE, {"organizationId": "acme"}, headers=ws.key_headers)
    assert_failure(missing, 400, "INVALID_ARGUMENT")


async def test_another_workspace_cannot_update(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    owner = await api.create_workspace("owner-a@example.com")
    intruder = await api.create_workspace("owner-b@example.com")
    await insert(database_url, [row(owner, "a1", status="open")])

    attempt = await update(api, intruder, annotationIds=["a1"], updatedData=[{"status": DONE}])

    assert attempt.status == 200, attempt.body
    assert attempt.data == {
        "a1": {"success": False, "id": "a1", "message": "Annotation not found."}
    }
    kept = await stored(database_url, owner, "a1")
    assert kept is not None
    assert kept["status_id"] == "open"
    for side in (owner, intruder):
        assert await events(database_url, nats_url, side) == []


async def test_user_tokens_need_the_editor_role(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("tokens@example.com")
    await insert(
        database_url,
        [row(ws, "a1"), row(ws, "secret", number=2, author="zed", visibility="restricted")],
    )
    editor = await user_headers(api, ws, "ed", "editor")
    viewer = await user_headers(api, ws, "vi", "viewer")
    data = {"organizationId": "acme", "documentId": "d1", "updatedData": [{"context": {"k": 1}}]}

    denied = await api.post(UPDATE, data, headers=viewer)
    assert_failure(denied, 403, "PERMISSION_DENIED")

    allowed = await api.post(UPDATE, data, headers=editor)
    assert allowed.status == 200, allowed.body
    # A restricted annotation the editor may not see is not there for them.
    assert set(allowed.data) == {"a1"}

    posing = await api.post(
        UPDATE, {**data, "updatedData": [{"from": {"userId": "someone-else"}}]}, headers=editor
    )
    assert_failure(posing, 403, "PERMISSION_DENIED")
    rename = {"oldUser": {"userId": "alice"}, "newUser": {"userId": "eve"}}
    renaming = await api.post(UPDATE, {**data, "updateUsers": [rename]}, headers=editor)
    assert_failure(renaming, 403, "PERMISSION_DENIED")
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert kept["creator_user_id"] == "alice"
