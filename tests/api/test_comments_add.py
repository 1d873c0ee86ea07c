"""Adding comment annotations and comments: every field as stored, generated ids and numbers,
suggestions and agents, and the events written with each add."""

from __future__ import annotations

import asyncpg
import msgspec

from redline.proto.events.comments import AnnotationAdded, CommentAdded
from redline.testing.api import ApiClient, assert_failure
from tests.api.comments_add_support import (
    ADD_COMMENTS,
    PRIORITY,
    REASON,
    STATUS,
    add,
    add_comments,
    annotation,
    comment,
    events,
    stored,
)


async def test_every_field_is_stored_as_given(api: ApiClient, db: asyncpg.Connection) -> None:
    ws = await api.create_workspace("fields@example.com")
    alice = {"userId": "alice", "name": "Alice", "email": "alice@example.com", "isAdmin": True}
    added = await add(
        api,
        ws,
        annotation(
            comment(
                "alice",
                "Hi {{bob}}",
                commentHtml="<p>Hi {{bob}}</p>",
                commentId=7,
                context={"k": 1},
                isCommentResolverUsed=True,
                isCommentTextAvailable=True,
                createdAt=1_700_000_000_000,
                lastUpdated=1_700_000_001_000,
                attachments=[{"attachmentId": 3, "name": "a.png", "size": 10, "url": "https://x"}],
                taggedUserContacts=[{"userId": "bob", "contact": {"userId": "bob", "name": "B"}}],
                triggerNotification=True,
            )
            | {"from": alice},
            comment("carol", "Reply"),
            annotationId="ann-1",
            location={"id": "v1", "locationName": "Version 1"},
            targetElement={"elementId": "e1", "targetText": "t", "occurrence": 1},
            status=STATUS,
            priority=PRIORITY,
            assignedTo={"userId": "dave"},
            context={"access": {"team": ["a", "b"], "paid": True}, "x": "y"},
            createdAt=1_700_000_000_000,
            lastUpdated=1_700_000_002_000,
            commentType="chart",
            visibility={"type": "restricted", "userIds": ["erin"]},
        ),
    )

    assert added.status == 200, added.body
    assert added.result["message"] == "Comment Annotation(s) added successfully."
    entry = added.data["ann-1"]
    assert entry["success"] is True
    assert entry["message"] == "Added Successfully"
    assert entry["commentIds"][0] == 7
    assert len(entry["commentIds"]) == 2
    row = await stored(db, ws, "ann-1")
    body = row["body"]
    assert body["annotationNumber"] == 1
    assert body["annotationIndex"] == 1
    assert body["type"] == "comment"
    assert body["sourceType"] == "rest-api"
    assert body["createdAt"] == 1_700_000_000_000
    assert body["lastUpdated"] == 1_700_000_002_000
    assert body["location"] == {"id": "v1", "locationName": "Version 1"}
    assert isinstance(body["locationId"], int)
    assert body["targetElement"] == {"elementId": "e1", "targetText": "t", "occurrence": 1}
    assert body["status"] == STATUS
    assert body["priority"] == PRIORITY
    assert body["assignedTo"] == {"userId": "dave"}
    assert body["context"] == {
        "access": {"team": ["a", "b"], "paid": True},
        "x": "y",
        "accessFields": ["team:a", "team:b", "paid:true"],
    }
    assert body["commentType"] == "chart"
    assert body["visibilityConfig"] == {"type": "restricted", "userIds": ["erin"]}
    assert body["metadata"] == {"apiKey": ws.api_key, "organizationId": "acme", "documentId": "d1"}
    assert body["from"] == alice
    assert "suggestion" not in body
    assert "agent" not in body
    first, second = body["comments"]
    assert first == {
        "commentId": 7,
        "type": "text",
        "status": "added",
        "isDraft": False,
        "isCommentTextAvailable": True,
        "createdAt": 1_700_000_000_000,
        "lastUpdated": "2023-11-14T22:13:21.000Z",
        "from": alice,
        "commentText": "Hi {{bob}}",
        "commentHtml": "<p>Hi {{bob}}</p>",
        "isCommentResolverUsed": True,
        "attachments": [{"attachmentId": 3, "name": "a.png", "size": 10, "url": "https://x"}],
        "taggedUserContacts": [{"userId": "bob", "contact": {"userId": "bob", "name": "B"}}],
        "context": {"k": 1},
        "sourceType": "rest-api",
    }
    assert second["from"] == {"userId": "carol"}
    assert second["commentId"] == entry["commentIds"][1]
    assert row["status_id"] == "open"
    assert row["status_type"] == "ongoing"
    assert row["location_id"] == "v1"
    assert row["creator_user_id"] == "alice"
    assert row["assigned_user_id"] == "dave"
    assert row["visibility"] == "restricted"
    assert row["visible_to"] == ["erin"]
    assert row["mentioned_user_ids"] == ["bob"]
    assert row["commenter_user_ids"] == ["alice", "carol"]
    assert row["created_at"] == 1_700_000_000_000
    assert row["last_updated"] == 1_700_000_002_000
    got = await api.post(
        "/v2/commentannotations/get",
        {"organizationId": "acme", "documentId": "d1", "annotationIds": ["ann-1"]},
        headers=ws.key_headers,
    )
    assert got.status == 200, got.body
    assert got.data == [body]


async def test_ids_are_generated_and_numbers_count_per_document(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    ws = await api.create_workspace("ids@example.com")
    first = await add(api, ws, annotation(), annotation(comment(), comment("bob")))
    assert first.status == 200, first.body
    other_doc = await add(api, ws, annotation(), documentId="d2")
    again = await add(api, ws, annotation())

    ids = list(first.data) + list(again.data)
    for annotation_id in ids:
        assert len(annotation_id) == 20
        assert all(ch.isalnum() or ch in "-_" for ch in annotation_id)
    numbers = [(await stored(db, ws, i))["body"]["annotationNumber"] for i in ids]
    assert numbers == [1, 2, 3]
    (d2_id,) = other_doc.data
    assert (await stored(db, ws, d2_id))["annotation_number"] == 1
    two = first.data[ids[1]]["commentIds"]
    assert len(set(two)) == 2
    assert all(isinstance(i, int) for i in two)
    body = (await stored(db, ws, ids[0]))["body"]
    assert body["visibilityConfig"] == {"type": "public"}
    assert "location" not in body
    assert "status" not in body
    assert "context" not in body


async def test_suggestions_start_pending(api: ApiClient, db: asyncpg.Connection) -> None:
    ws = await api.create_workspace("suggest@example.com")
    added = await add(api, ws, annotation(annotationId="s1", type="suggestion"))
    legacy = await add(api, ws, annotation(annotationId="s2", commentType="suggestion"))
    assert added.status == 200, added.body
    assert legacy.status == 200, legacy.body

    row = await stored(db, ws, "s1")
    assert row["body"]["suggestion"] == {"status": "pending"}
    assert row["type"] == "suggestion"
    assert row["suggestion_status"] == "pending"
    # The legacy commentType is kept but does not make a suggestion.
    legacy_row = await stored(db, ws, "s2")
    assert legacy_row["type"] == "comment"
    assert "suggestion" not in legacy_row["body"]
    assert legacy_row["body"]["commentType"] == "suggestion"


async def test_agent_on_the_root_comment_makes_an_agent_suggestion(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    ws = await api.create_workspace("agent@example.com")
    agent = {
        "agentSource": "svc",
        "agentId": "spell-check",
        "executionId": "exec_1",
        "url": "https://example.com/p",
        "reason": {**REASON, "confidence": 90, "findingType": "text", "custom": {"a": 1}},
    }
    added = await add(
        api,
        ws,
        annotation(comment(agent=agent), comment("bob"), annotationId="a1", type="comment"),
        annotation(
            comment(),
            comment("x", agent={"agentSource": "external", "agentName": "Lint", "reason": REASON}),
            annotationId="a2",
        ),
    )

    assert added.status == 200, added.body
    row = await stored(db, ws, "a1")
    body = row["body"]
    expected = {**agent, "agentType": "built-in"}
    assert body["agent"] == expected
    assert body["comments"][0]["agent"] == expected
    assert body["sourceType"] == "agent"
    assert body["type"] == "suggestion"
    assert body["suggestion"] == {"status": "pending"}
    assert body["comments"][0]["sourceType"] == "agent"
    assert body["comments"][1]["sourceType"] == "rest-api"
    assert (row["agent_id"], row["agent_type"], row["agent_source"], row["execution_id"]) == (
        "spell-check",
        "built-in",
        "svc",
        "exec_1",
    )
    # An agent reply on a later comment marks only that comment.
    reply_row = await stored(db, ws, "a2")
    assert reply_row["source_type"] == "rest-api"
    assert reply_row["agent_id"] is None
    assert reply_row["body"]["comments"][1]["agent"]["agentType"] == "external"
    assert reply_row["body"]["comments"][1]["sourceType"] == "agent"


async def test_events_are_written_with_the_request_flags(
    api: ApiClient, db: asyncpg.Connection, nats_url: str, database_url: str
) -> None:
    ws = await api.create_workspace("events@example.com")
    added = await add(
        api,
        ws,
        annotation(
            comment(triggerNotification=True),
            comment("bob", triggerActivities=True),
            annotationId="e1",
        ),
    )
    assert added.status == 200, added.body

    written = await events(database_url, nats_url, ws)
    assert [type(e) for e in written] == [AnnotationAdded, CommentAdded]
    annotation_event, comment_event = written
    assert isinstance(comment_event, CommentAdded)
    # The event carries the stored annotation typed; its JSON is the stored JSON.
    assert msgspec.to_builtins(annotation_event.annotation) == (await stored(db, ws, "e1"))["body"]
    assert annotation_event.workspaceId == ws.id
    assert (annotation_event.organizationId, annotation_event.documentId) == ("acme", "d1")
    assert annotation_event.triggerNotification
    assert not annotation_event.triggerActivities
    assert annotation_event.actionUser == {"userId": "alice"}
    assert comment_event.triggerActivities
    assert not comment_event.triggerNotification
    assert comment_event.commentId == added.data["e1"]["commentIds"][1]


async def test_comments_are_appended_with_new_ids(
    api: ApiClient, db: asyncpg.Connection, nats_url: str, database_url: str
) -> None:
    ws = await api.create_workspace("replies@example.com")
    await add(api, ws, annotation(annotationId="r1", lastUpdated=1_000))
    tagged = {
        "text": "@bob",
        "userId": "bob",
        "contact": {"userId": "bob", "name": "B", "email": "b@x"},
    }
    replied = await add_comments(
        api,
        ws,
        "r1",
        comment("bob", "Thanks {{bob}}", taggedUserContacts=[tagged]),
        comment(
            "carol",
            "Me too",
            commentId=42,
            agent={"agentSource": "external", "agentName": "L", "reason": REASON},
        ),
    )

    assert replied.status == 200, replied.body
    assert replied.result["message"] == "Comment(s) added successfully."
    first_id, second_id = replied.data
    assert second_id == 42
    assert isinstance(first_id, int)
    row = await stored(db, ws, "r1")
    comments = row["body"]["comments"]
    assert [c["commentId"] for c in comments[1:]] == [first_id, 42]
    assert comments[1]["taggedUserContacts"] == [tagged]
    assert comments[2]["sourceType"] == "agent"
    assert row["source_type"] == "rest-api"
    assert row["commenter_user_ids"] == ["alice", "bob", "carol"]
    assert row["mentioned_user_ids"] == ["bob"]
    assert row["last_updated"] > 1_000
    assert row["body"]["lastUpdated"] == row["last_updated"]
    added_events = [
        e for e in await events(database_url, nats_url, ws) if isinstance(e, CommentAdded)
    ]
    assert [e.commentId for e in added_events] == [first_id, 42]
    assert msgspec.to_builtins(added_events[0].annotation) == row["body"]


async def test_comments_under_the_sdk_name_with_progress_and_actions(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    # The official SDK sends the comments of comments/add as `comments` too, and documents
    # `progress` and `actions` on annotations and comments: stored as given, echoed back.
    ws = await api.create_workspace("sdkcomments@example.com")
    actions = [{"id": "approve", "label": "Approve", "metadata": {"k": 1}}]
    await add(api, ws, annotation(annotationId="s1", actions=actions))
    progress = {"state": "active", "steps": [{"label": "scan", "state": "completed"}]}
    body = {
        "organizationId": "acme",
        "documentId": "d1",
        "annotationId": "s1",
        "comments": [comment("bob", "Scanning", progress=progress, triggerNotification=True)],
    }
    replied = await api.post(ADD_COMMENTS, body, headers=ws.key_headers)
    both = await api.post(
        ADD_COMMENTS, {**body, "commentData": [comment("bob")]}, headers=ws.key_headers
    )
    neither = await api.post(
        ADD_COMMENTS, {k: v for k, v in body.items() if k != "comments"}, headers=ws.key_headers
    )
    too_many = await add(api, ws, annotation(annotationId="s2", actions=[{"id": "a"}] * 21))

    assert replied.status == 200, replied.body
    assert assert_failure(both, 400, "INVALID_ARGUMENT")["details"]["issues"][0]["path"] == (
        "data.comments"
    )
    assert assert_failure(neither, 400, "INVALID_ARGUMENT")["details"]["issues"][0]["path"] == (
        "data.commentData"
    )
    assert assert_failure(too_many, 400, "INVALID_ARGUMENT")["details"]["issues"][0]["path"] == (
        "data.commentAnnotations[0].actions"
    )
    row = await stored(db, ws, "s1")
    assert row["body"]["actions"] == actions
    assert row["body"]["comments"][1]["progress"] == progress
    assert "triggerNotification" not in row["body"]["comments"][1]


async def test_a_suggestion_keeps_its_proposed_change_and_the_server_owns_its_status(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    ws = await api.create_workspace("proposed@example.com")
    proposed = {"targetId": "row.123", "oldValue": {"x": 205}, "newValue": {"x": 305}, "own": 1}
    added = await add(
        api,
        ws,
        annotation(
            annotationId="s1", type="suggestion", suggestion={**proposed, "status": "accepted"}
        ),
        annotation(annotationId="c1", suggestion=proposed),
    )

    assert added.status == 200, added.body
    assert (await stored(db, ws, "s1"))["body"]["suggestion"] == {**proposed, "status": "pending"}
    # Only suggestions carry one: on a plain comment it is ignored.
    assert "suggestion" not in (await stored(db, ws, "c1"))["body"]


async def test_the_hosted_name_of_the_service_agents_is_taken_as_svc(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    ws = await api.create_workspace("hosted-agent@example.com")
    agent = {"agentSource": "velt", "agentId": "spell-check", "reason": REASON}

    added = await add(api, ws, annotation(comment(agent=agent), annotationId="a1"))
    nameless = await add(
        api, ws, annotation(comment(agent={"agentSource": "velt", "reason": REASON}))
    )

    assert added.status == 200, added.body
    row = await stored(db, ws, "a1")
    assert row["body"]["agent"]["agentSource"] == "svc"
    assert (row["agent_source"], row["agent_type"]) == ("svc", "built-in")
    # As for svc: its agents are named.
    error = assert_failure(nameless, 400, "INVALID_ARGUMENT")
    assert "commentData[0].agent.agentId" in str(error["details"])
    found = await api.post(
        "/v2/commentannotations/get",
        {"organizationId": "acme", "documentId": "d1", "agentSource": "velt"},
        headers=ws.key_headers,
    )
    assert [a["annotationId"] for a in found.data] == ["a1"]
