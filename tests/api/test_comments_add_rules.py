"""The rules of adding annotations and comments, and the field paths of their errors: agent and
field rules, tagged users, the per-annotation result map with partial failures, whole-request
failures, and missing organizations or documents."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.comments_add_support import (
    REASON,
    STATUS,
    add,
    add_comments,
    annotation,
    comment,
    stored,
)


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


async def test_an_annotation_whose_event_would_be_too_large_is_refused_alone(
    api: ApiClient,
) -> None:
    """Ten comments of 99 KB fit the request, but a comment's event (the annotation with every
    comment, and the comment again) would not fit the stream: that entry is refused, with the
    reason, and nothing of it is stored."""
    ws = await api.create_workspace("too-large@example.com")
    comments = [comment("alice", commentText=f"{n}" + "x" * 99_000) for n in range(10)]
    refused = await add(api, ws, annotation(*comments, annotationId="big"))
    error = assert_failure(refused, 400, "INVALID_ARGUMENT")
    entry = error["details"]["big"]
    assert entry["success"] is False
    assert "too large to record" in entry["message"]
    got = await api.post(
        "/v2/commentannotations/get",
        {"organizationId": "acme", "documentId": "d1"},
        headers=ws.key_headers,
    )
    assert got.status == 200, got.body
    assert got.data == []
