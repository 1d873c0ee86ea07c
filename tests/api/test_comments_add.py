"""Adding comment annotations and comments: every field as stored, the rules and the field paths
of their errors, the per-annotation result map with partial failures, generated ids, agents,
tagged users, permission checks, user tokens, tenancy, and the events written with each add."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from redline.proto.events import decode_event
from redline.proto.events.comments import AnnotationAdded, CommentAdded, CommentsEvent
from redline.testing.api import ApiClient, Response, Workspace, assert_failure

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


def issue_paths(error: dict[str, Any]) -> list[str]:
    return [issue["path"] for issue in error["details"]["issues"]]


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


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    conn = await asyncpg.connect(database_url)
    yield conn
    await conn.close()


async def stored(db: asyncpg.Connection, ws: Workspace, annotation_id: str) -> dict[str, Any]:
    record = await db.fetchrow(
        "SELECT *, body::text AS body_text FROM comments.annotation"
        " WHERE api_key = $1 AND annotation_id = $2",
        ws.api_key,
        annotation_id,
    )
    assert record is not None
    return {**dict(record), "body": json.loads(record["body_text"])}


async def events(db: asyncpg.Connection, ws: Workspace) -> list[CommentsEvent]:
    rows = await db.fetch("SELECT payload FROM comments.outbox ORDER BY seq")
    found = [decode_event(r["payload"]) for r in rows]
    return [e for e in found if isinstance(e, CommentsEvent) and e.apiKey == ws.api_key]


# adding annotations ------------------------------------------------------------------------------


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
    assert added.result["message"] == "Added Successfully"
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


@pytest.mark.parametrize(
    ("agent", "path"),
    [
        ({"agentSource": "svc", "reason": REASON}, "commentData[0].agent.agentId"),
        ({"agentSource": "external", "reason": REASON}, "commentData[0].agent.agentName"),
        (
            {"agentSource": "svc", "agentId": "c", "reason": {**REASON, "severity": "huge"}},
            "commentData[0].agent.reason.severity",
        ),
        (
            {"agentSource": "svc", "agentId": "c", "reason": {"title": "t", "severity": "low"}},
            "commentData[0].agent.reason.description",
        ),
        (
            {"agentSource": "svc", "agentId": "c", "reason": {**REASON, "confidence": 101}},
            "commentData[0].agent.reason.confidence",
        ),
        (
            {"agentSource": "svc", "agentId": "c", "reason": {**REASON, "confidence": 5.5}},
            "commentData[0].agent.reason.confidence",
        ),
        (
            {"agentSource": "svc", "agentId": "c", "reason": {**REASON, "source": "web"}},
            "commentData[0].agent.reason.source",
        ),
        (
            {"agentSource": "svc", "agentId": "c", "reason": {**REASON, "findingType": "x"}},
            "commentData[0].agent.reason.findingType",
        ),
    ],
)
async def test_agent_rules_fail_the_entry_naming_the_field(
    api: ApiClient, agent: dict[str, Any], path: str
) -> None:
    ws = await api.create_workspace("agent-rules@example.com")
    failed = await add(api, ws, annotation(comment(agent=agent), annotationId="bad"))

    error = assert_failure(failed, 400, "INVALID_ARGUMENT")
    entry = error["details"]["bad"]
    assert entry["success"] is False
    assert entry["code"] == "invalid-argument"
    assert [i["path"] for i in entry["issues"]] == [f"data.commentAnnotations[0].{path}"]


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("status", {**STATUS, "color": None}, "status.color"),
        ("status", {k: v for k, v in STATUS.items() if k != "lightColor"}, "status.lightColor"),
        ("status", {k: v for k, v in STATUS.items() if k != "svg"}, "status.svg"),
        ("priority", {"id": "p", "name": "P", "color": "#000"}, "priority.lightColor"),
        ("context", {"access": "everyone"}, "context.access"),
        ("context", {"access": {"team": {"a": 1}}}, "context.access.team"),
    ],
)
async def test_field_rules_fail_the_entry_naming_the_field(
    api: ApiClient, field: str, value: Any, path: str
) -> None:
    ws = await api.create_workspace("field-rules@example.com")
    failed = await add(api, ws, annotation(annotationId="bad", **{field: value}))

    error = assert_failure(failed, 400, "INVALID_ARGUMENT")
    assert [i["path"] for i in error["details"]["bad"]["issues"]] == [
        f"data.commentAnnotations[0].{path}"
    ]


async def test_status_with_an_icon_url_is_enough(api: ApiClient) -> None:
    ws = await api.create_workspace("icon@example.com")
    status = {k: v for k, v in STATUS.items() if k != "svg"} | {"iconUrl": "https://i/x.svg"}
    assert (await add(api, ws, annotation(status=status))).status == 200


async def test_every_tagged_user_needs_a_contact(api: ApiClient, db: asyncpg.Connection) -> None:
    ws = await api.create_workspace("tags@example.com")
    failed = await add(
        api,
        ws,
        annotation(comment(text="Hi {{bob}}"), annotationId="t1"),
        annotation(comment(text="ok", commentHtml="<b>{{carol}}</b>"), annotationId="t2"),
        annotation(
            comment(
                text="Hi {{bob}}",
                taggedUserContacts=[{"userId": "bob", "contact": {"userId": "bob"}}],
            ),
            annotationId="t3",
        ),
    )

    error = assert_failure(failed, 400, "INVALID_ARGUMENT")
    details = error["details"]
    assert details["t1"]["issues"][0]["path"] == (
        "data.commentAnnotations[0].commentData[0].commentText"
    )
    assert "bob" in details["t1"]["message"]
    assert details["t2"]["issues"][0]["path"] == (
        "data.commentAnnotations[1].commentData[0].commentHtml"
    )
    # The valid entry was written and stays written.
    assert details["t3"]["success"] is True
    assert details["t3"]["message"] == "Added Successfully"
    assert (await stored(db, ws, "t3"))["mentioned_user_ids"] == ["bob"]
    count = await db.fetchval(
        "SELECT count(*) FROM comments.annotation WHERE api_key = $1", ws.api_key
    )
    assert count == 1


async def test_existing_and_repeated_ids_fail_only_their_entry(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    ws = await api.create_workspace("dupes@example.com")
    assert (await add(api, ws, annotation(annotationId="x"))).status == 200
    failed = await add(
        api,
        ws,
        annotation(annotationId="x"),
        annotation(annotationId="y"),
        annotation(comment(commentId=1), comment(commentId=1), annotationId="z"),
    )

    error = assert_failure(failed, 400, "INVALID_ARGUMENT")
    details = error["details"]
    assert details["x"]["code"] == "already-exists"
    assert details["x"]["success"] is False
    assert details["y"]["success"] is True
    assert details["z"]["issues"][0]["path"] == (
        "data.commentAnnotations[2].commentData[1].commentId"
    )
    # The failed id kept its number: y is the second annotation of the document.
    assert (await stored(db, ws, "y"))["annotation_number"] == 2


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (
            {"commentAnnotations": [{"commentData": [{"commentText": "x"}]}]},
            "commentData[0].from",
        ),
        ({"commentAnnotations": [{"commentData": []}]}, "commentData"),
        ({"commentAnnotations": [annotation(type="note")]}, "type"),
        ({"commentAnnotations": [annotation(visibility={"type": "secret"})]}, "visibility.type"),
        ({"commentAnnotations": [annotation(location={"locationName": "v"})]}, "location.id"),
        ({"commentAnnotations": [annotation(colour="red")]}, "colour"),
        ({"commentAnnotations": [annotation(status={"id": "s", "name": "S"})]}, "status.type"),
        (
            {"commentAnnotations": [annotation(comment(attachments=[{"name": "a"}]))]},
            "commentData[0].attachments[0].attachmentId",
        ),
        (
            {"commentAnnotations": [annotation(comment(taggedUserContacts=[{"userId": "b"}]))]},
            "commentData[0].taggedUserContacts[0].contact",
        ),
        (
            {"commentAnnotations": [annotation(comment(agent={"agentSource": "bot"}))]},
            "commentData[0].agent",
        ),
    ],
)
async def test_schema_errors_reject_the_whole_request(
    api: ApiClient, db: asyncpg.Connection, data: dict[str, Any], path: str
) -> None:
    ws = await api.create_workspace("schema@example.com")
    good = annotation(annotationId="good")
    data = {**data, "commentAnnotations": [good, *data["commentAnnotations"]]}
    failed = await add(api, ws, **data)

    error = assert_failure(failed, 400, "INVALID_ARGUMENT")
    (found,) = issue_paths(error)
    assert found.startswith(f"data.commentAnnotations[1].{path}"), found
    count = await db.fetchval(
        "SELECT count(*) FROM comments.annotation WHERE api_key = $1", ws.api_key
    )
    assert count == 0


async def test_an_id_repeated_in_one_request_is_refused_whole(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    ws = await api.create_workspace("repeat@example.com")
    failed = await add(api, ws, annotation(annotationId="r"), annotation(annotationId="r"))
    assert issue_paths(assert_failure(failed, 400, "INVALID_ARGUMENT")) == [
        "data.commentAnnotations[1].annotationId"
    ]
    count = await db.fetchval(
        "SELECT count(*) FROM comments.annotation WHERE api_key = $1", ws.api_key
    )
    assert count == 0


async def test_too_many_annotations_are_refused(api: ApiClient) -> None:
    ws = await api.create_workspace("limits@example.com")
    failed = await add(api, ws, *[annotation() for _ in range(101)])
    assert issue_paths(assert_failure(failed, 400, "INVALID_ARGUMENT")) == [
        "data.commentAnnotations"
    ]


async def test_missing_organization_or_document_without_the_flags(api: ApiClient) -> None:
    ws = await api.create_workspace("ensure@example.com")
    no_org = await add(api, ws, createOrganization=False, createDocument=False)
    assert_failure(no_org, 404, "NOT_FOUND")
    no_doc = await add(api, ws, createOrganization=True, createDocument=False)
    assert_failure(no_doc, 404, "NOT_FOUND")

    created = await add(api, ws, createOrganization=True, createDocument=True)
    assert created.status == 200, created.body
    docs = await api.post(
        "/v2/organizations/documents/get",
        {"organizationId": "acme", "documentIds": ["d1"]},
        headers=ws.key_headers,
    )
    assert docs.status == 200, docs.body
    assert [d["id"] for d in docs.data] == ["d1"]
    # Once they exist, the flags are not needed.
    again = await add(api, ws, createOrganization=False, createDocument=False)
    assert again.status == 200, again.body


async def make_private(api: ApiClient, ws: Workspace) -> None:
    """Public documents let anyone in: only members may reach an organizationPrivate one."""
    updated = await api.post(
        "/v2/organizations/documents/access/update",
        {"organizationId": "acme", "documentIds": ["d1"], "accessType": "organizationPrivate"},
        headers=ws.key_headers,
    )
    assert updated.status == 200, updated.body


async def test_verify_user_permissions_checks_the_root_author(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    ws = await api.create_workspace("verify@example.com")
    await add(api, ws)  # creates acme/d1
    await make_private(api, ws)
    members = await api.post(
        "/v2/users/add",
        {"organizationId": "acme", "users": [{"userId": "member", "accessRole": "viewer"}]},
        headers=ws.key_headers,
    )
    assert members.status == 200, members.body

    checked = await add(
        api,
        ws,
        annotation(comment("member"), comment("stranger"), annotationId="ok"),
        annotation(comment("stranger"), annotationId="no"),
        verifyUserPermissions=True,
    )

    error = assert_failure(checked, 403, "PERMISSION_DENIED")
    assert error["details"]["ok"]["success"] is True
    assert error["details"]["no"]["code"] == "permission-denied"
    assert error["details"]["no"]["issues"][0]["path"] == (
        "data.commentAnnotations[1].commentData[0].from.userId"
    )
    assert (await stored(db, ws, "ok"))["creator_user_id"] == "member"
    unchecked = await add(api, ws, annotation(comment("stranger")))
    assert unchecked.status == 200, unchecked.body


async def test_events_are_written_with_the_request_flags(
    api: ApiClient, db: asyncpg.Connection
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

    written = await events(db, ws)
    assert [type(e) for e in written] == [AnnotationAdded, CommentAdded]
    annotation_event, comment_event = written
    assert isinstance(comment_event, CommentAdded)
    assert annotation_event.annotation == (await stored(db, ws, "e1"))["body"]
    assert annotation_event.workspaceId == ws.id
    assert (annotation_event.organizationId, annotation_event.documentId) == ("acme", "d1")
    assert annotation_event.triggerNotification
    assert not annotation_event.triggerActivities
    assert annotation_event.actionUser == {"userId": "alice"}
    assert comment_event.triggerActivities
    assert not comment_event.triggerNotification
    assert comment_event.commentId == added.data["e1"]["commentIds"][1]


# adding comments ---------------------------------------------------------------------------------


async def test_comments_are_appended_with_new_ids(api: ApiClient, db: asyncpg.Connection) -> None:
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
    added_events = [e for e in await events(db, ws) if isinstance(e, CommentAdded)]
    assert [e.commentId for e in added_events] == [first_id, 42]
    assert added_events[0].annotation == row["body"]


async def test_comment_rules(api: ApiClient) -> None:
    ws = await api.create_workspace("reply-rules@example.com")
    created = await add(api, ws, annotation(comment(commentId=5), annotationId="r1"))
    assert created.status == 200, created.body

    taken = await add_comments(api, ws, "r1", comment(commentId=5))
    assert issue_paths(assert_failure(taken, 400, "INVALID_ARGUMENT")) == [
        "data.commentData[0].commentId"
    ]
    untagged = await add_comments(api, ws, "r1", comment(text="{{zed}}"))
    assert issue_paths(assert_failure(untagged, 400, "INVALID_ARGUMENT")) == [
        "data.commentData[0].commentText"
    ]
    partial_contact = {"text": "@b", "userId": "b", "contact": {"userId": "b"}}
    loose = await add_comments(api, ws, "r1", comment(taggedUserContacts=[partial_contact]))
    assert issue_paths(assert_failure(loose, 400, "INVALID_ARGUMENT")) == [
        "data.commentData[0].taggedUserContacts[0].contact.name"
    ]
    for field, value in (("type", "comment"), ("visibility", {"type": "public"})):
        refused = await add_comments(api, ws, "r1", comment(), **{field: value})
        assert issue_paths(assert_failure(refused, 400, "INVALID_ARGUMENT")) == [f"data.{field}"]
    no_from = await add_comments(api, ws, "r1", {"commentText": "x"})
    assert issue_paths(assert_failure(no_from, 400, "INVALID_ARGUMENT")) == [
        "data.commentData[0].from"
    ]
    missing = await add_comments(api, ws, "nope", comment())
    assert_failure(missing, 404, "NOT_FOUND")
    wrong_doc = await add_comments(api, ws, "r1", comment(), documentId="d2", createDocument=True)
    assert_failure(wrong_doc, 404, "NOT_FOUND")


async def test_comment_add_verifies_every_author(api: ApiClient) -> None:
    ws = await api.create_workspace("reply-verify@example.com")
    await add(api, ws, annotation(annotationId="r1"))
    await make_private(api, ws)
    await api.post(
        "/v2/users/add",
        {"organizationId": "acme", "users": [{"userId": "member"}]},
        headers=ws.key_headers,
    )
    refused = await add_comments(
        api, ws, "r1", comment("member"), comment("stranger"), verifyUserPermissions=True
    )
    assert issue_paths(assert_failure(refused, 403, "PERMISSION_DENIED")) == [
        "data.commentData[1].from.userId"
    ]
    allowed = await add_comments(api, ws, "r1", comment("member"), verifyUserPermissions=True)
    assert allowed.status == 200, allowed.body


# user tokens and tenancy -------------------------------------------------------------------------


async def user_token(api: ApiClient, ws: Workspace, user_id: str) -> dict[str, str]:
    made = await api.post("/v2/auth/generate_token", {"userId": user_id}, headers=ws.key_headers)
    assert made.status == 200, made.body
    return {"x-redline-api-key": ws.api_key, "x-redline-auth-token": made.data["token"]}


async def test_user_tokens_add_as_their_own_editor_user(api: ApiClient) -> None:
    ws = await api.create_workspace("tokens@example.com")
    await add(api, ws, annotation(annotationId="r1"))
    grants = await api.post(
        "/v2/users/add",
        {
            "organizationId": "acme",
            "users": [
                {"userId": "ed", "accessRole": "editor"},
                {"userId": "vi", "accessRole": "viewer"},
            ],
        },
        headers=ws.key_headers,
    )
    assert grants.status == 200, grants.body
    editor, viewer = await user_token(api, ws, "ed"), await user_token(api, ws, "vi")

    own = await add(api, ws, annotation(comment("ed")), headers=editor)
    assert own.status == 200, own.body
    reply = await add_comments(api, ws, "r1", comment("ed"), headers=editor)
    assert reply.status == 200, reply.body

    as_other = await add(api, ws, annotation(comment("alice")), headers=editor)
    assert issue_paths(assert_failure(as_other, 403, "PERMISSION_DENIED")) == [
        "data.commentAnnotations[0].commentData[0].from.userId"
    ]
    assert_failure(
        await add(api, ws, annotation(comment("vi")), headers=viewer), 403, "PERMISSION_DENIED"
    )
    assert_failure(
        await add_comments(api, ws, "r1", comment("vi"), headers=viewer), 403, "PERMISSION_DENIED"
    )


async def test_user_token_cannot_reply_to_a_restricted_annotation_it_cannot_see(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("restricted@example.com")
    await add(
        api,
        ws,
        annotation(annotationId="secret", visibility={"type": "restricted", "userIds": ["ok"]}),
    )
    await api.post(
        "/v2/users/add",
        {"organizationId": "acme", "users": [{"userId": "ed"}, {"userId": "ok"}]},
        headers=ws.key_headers,
    )
    hidden = await add_comments(
        api, ws, "secret", comment("ed"), headers=await user_token(api, ws, "ed")
    )
    assert_failure(hidden, 404, "NOT_FOUND")
    seen = await add_comments(
        api, ws, "secret", comment("ok"), headers=await user_token(api, ws, "ok")
    )
    assert seen.status == 200, seen.body


async def test_another_workspace_cannot_reply_to_an_annotation(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    a = await api.create_workspace("tenant-a@example.com")
    b = await api.create_workspace("tenant-b@example.com")
    await add(api, a, annotation(annotationId="mine"))

    other = await add_comments(
        api, b, "mine", comment(), createOrganization=True, createDocument=True
    )
    assert_failure(other, 404, "NOT_FOUND")
    # B may use the same id for its own annotation; A's stays untouched.
    assert (await add(api, b, annotation(annotationId="mine"))).status == 200
    assert len((await stored(db, a, "mine"))["body"]["comments"]) == 1
