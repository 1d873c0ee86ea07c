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


# the hosted form: commentIds + updatedData ----------------------------------------------------


def hosted(comment_ids: list[int], **updated: Any) -> dict[str, Any]:
    return {
        "organizationId": "acme",
        "documentId": "d1",
        "annotationId": "a1",
        "commentIds": comment_ids,
        "updatedData": updated,
    }


async def test_sdk_update_of_several_comments_answers_per_id(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("several@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob", "carol"))])
    tagged = [
        {
            "text": "@Dave",
            "userId": "dave",
            "contact": {"userId": "dave", "name": "Dave", "email": "d@x.io"},
        }
    ]
    attachment = {"attachmentId": 100001, "name": "shot.png", "mimeType": "image/png"}
    # The hosted SDK's UpdateCommentsRequest body.
    sdk_body = hosted(
        [2, 99, 3],
        commentText="see {{dave}}",
        commentHtml="<p>see {{dave}}</p>",
        taggedUserContacts=tagged,
        context={"ticket": "T-2"},
        attachments=[attachment],
    )

    updated = await update(api, ws, sdk_body)

    assert updated.status == 200, updated.body
    assert updated.result["message"] == "Comment updated successfully."
    assert updated.data == {
        "2": {"success": True, "id": 2, "message": "Updated successfully"},
        "99": {"success": False, "id": 99, "message": "Comment not found."},
        "3": {"success": True, "id": 3, "message": "Updated successfully"},
    }
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    first, second, third = kept["body"]["comments"]
    assert first["commentText"] == "Look"
    for comment in (second, third):
        assert comment["commentText"] == "see {{dave}}"
        assert comment["commentHtml"] == "<p>see {{dave}}</p>"
        assert comment["taggedUserContacts"] == tagged
        assert comment["context"] == {"ticket": "T-2"}
        assert comment["attachments"] == [attachment]
        assert comment["status"] == "updated"
    assert second["from"]["userId"] == "bob"
    emitted = await events(database_url, nats_url, ws)
    assert [(e["type"], e["commentId"]) for e in emitted] == [
        ("comments.comment.update", 2),
        ("comments.comment.update", 3),
    ]


async def test_hosted_form_from_replaces_the_author_and_mentions_are_checked(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("hostedfrom@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",))])

    untagged = await update(api, ws, hosted([2], commentText="hi {{erin}}"))
    error = assert_failure(untagged, 400, "INVALID_ARGUMENT")
    assert error["details"]["issues"][0]["path"] == "data.updatedData.taggedUserContacts"
    moved = await update(api, ws, hosted([2], **{"from": {"userId": "zed", "name": "Zed"}}))
    assert moved.status == 200, moved.body
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert kept["body"]["comments"][1]["from"] == {"userId": "zed", "name": "Zed"}


async def test_forms_do_not_mix(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("mix@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",))])

    both_ids = await update(api, ws, {**hosted([2], commentText="x"), "commentId": 2})
    no_ids = await update(api, ws, {k: v for k, v in change().items() if k != "commentId"})
    both_changes = await update(api, ws, {**hosted([2], commentText="x"), "commentHtml": "<p/>"})

    issue = assert_failure(both_ids, 400, "INVALID_ARGUMENT")["details"]["issues"][0]
    assert issue["path"] == "data.commentIds"
    issue = assert_failure(no_ids, 400, "INVALID_ARGUMENT")["details"]["issues"][0]
    assert issue["path"] == "data.commentIds"
    issue = assert_failure(both_changes, 400, "INVALID_ARGUMENT")["details"]["issues"][0]
    assert issue["path"] == "data.commentHtml"
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert kept["body"]["comments"][1]["commentText"] == "reply"


async def test_without_comment_ids_every_comment_of_the_selected_authors_changes(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    # The official SDK's form: no commentIds is every comment of the thread, and userIds narrows
    # it to those authors' comments.
    ws = await api.create_workspace("everycomment@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob", "carl", "bob"))])

    by_bob = await update(
        api,
        ws,
        {
            **{k: v for k, v in hosted([], commentText="seen").items() if k != "commentIds"},
            "userIds": ["bob"],
            "triggerNotification": False,
        },
    )
    every = await update(
        api, ws, {k: v for k, v in hosted([], context={"round": 2}).items() if k != "commentIds"}
    )

    assert by_bob.status == 200, by_bob.body
    assert sorted(by_bob.data) == ["2", "4"]
    assert every.status == 200, every.body
    assert sorted(every.data) == ["1", "2", "3", "4"]
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    comments = kept["body"]["comments"]
    assert [c["commentText"] for c in comments] == ["Look", "seen", "reply", "seen"]
    assert all(c["context"] == {"round": 2} for c in comments)
    emitted = await events(database_url, nats_url, ws)
    flags = [
        e.get("triggerNotification") for e in emitted if e["type"] == "comments.comment.update"
    ]
    assert flags == [False, False, None, None, None, None]


async def test_progress_and_actions_are_replaced_whole(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("progress@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",))])
    first = {"state": "active", "steps": [{"label": "read", "state": "completed"}]}

    started = await update(api, ws, hosted([2], progress=first, actions=[{"id": "ok"}]))
    finished = await update(api, ws, hosted([2], progress={"state": "completed"}))
    unknown = await update(api, ws, hosted([2], progress={"state": "paused"}))

    assert started.status == 200, started.body
    assert finished.status == 200, finished.body
    issue = assert_failure(unknown, 400, "INVALID_ARGUMENT")["details"]["issues"][0]
    assert issue["path"] == "data.updatedData.progress.state"
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert kept["body"]["comments"][1]["progress"] == {"state": "completed"}
    assert kept["body"]["comments"][1]["actions"] == [{"id": "ok"}]


async def test_user_tokens_in_the_hosted_form_edit_only_their_own_comments(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("hostedtokens@example.com")
    await insert(database_url, [row(ws, "a1", replies=("ed",))])
    editor = await user_headers(api, ws, "ed", "editor")

    mixed = await api.post(UPDATE, hosted([2, 1], commentText="all"), headers=editor)
    other_author = await api.post(
        UPDATE, hosted([2], **{"from": {"userId": "alice"}}), headers=editor
    )
    own = await api.post(UPDATE, hosted([2], commentText="mine"), headers=editor)

    assert_failure(mixed, 403, "PERMISSION_DENIED")
    assert_failure(other_author, 403, "PERMISSION_DENIED")
    assert own.status == 200, own.body
    assert own.data == {"2": {"success": True, "id": 2, "message": "Updated successfully"}}
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert [c["commentText"] for c in kept["body"]["comments"]] == ["Look", "mine"]


async def test_an_empty_tagged_list_clears_the_tags_in_either_form(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("cleartags@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob", "carol"))])
    tagged = [{"userId": "dave", "contact": {"userId": "dave", "name": "Dave"}}]
    for comment_id in (2, 3):
        set_tags = await update(api, ws, change(comment_id, taggedUserContacts=tagged))
        assert set_tags.status == 200, set_tags.body

    first_form = await update(api, ws, change(2, taggedUserContacts=[]))
    hosted_form = await update(api, ws, hosted([3], taggedUserContacts=[]))

    assert first_form.status == 200, first_form.body
    assert hosted_form.status == 200, hosted_form.body
    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    assert [c.get("taggedUserContacts") for c in kept["body"]["comments"][1:]] == [[], []]
