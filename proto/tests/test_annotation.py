"""The stored annotation: its JSON decodes into the Structs and encodes back the same, absent
fields left out, the caller's own fields in open objects kept; and what it says of its
audience."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from redline.proto.annotation import Annotation, Comment, stored_json
from redline.testing.annotations import annotation_json, comment_json

USER = {"userId": "ana", "name": "Ana", "email": "ana@example.com"}


def comment(comment_id: int, author: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return comment_json(comment_id, **{"from": author, **fields})


def annotation(**fields: Any) -> dict[str, Any]:
    """A numbered annotation by USER, its root comment saying "Hi"."""
    return annotation_json(
        **{
            "annotationNumber": 3,
            "annotationIndex": 3,
            "lastUpdated": 1_700_000_000_500,
            "metadata": {"apiKey": "k", "organizationId": "acme", "documentId": "d1"},
            "from": USER,
            "comments": [comment(1, USER, commentText="Hi")],
            **fields,
        }
    )


# Every field the writers store, with the caller's own fields in the open objects.
FULL = annotation(
    type="suggestion",
    sourceType="agent",
    location={"id": "loc", "locationName": "Page 1"},
    locationId=123_456,
    targetElement={"elementId": "e", "targetText": "t", "occurrence": 1, "selectAllContent": False},
    status={
        "id": "open",
        "name": "Open",
        "type": "default",
        "color": "#fff",
        "lightColor": "#eee",
        "svg": "<svg/>",
    },
    priority={"id": "p1", "name": "High", "color": "red", "lightColor": "pink"},
    assignedTo={"userId": "ben", "isAdmin": True, "contacts": [{"any": "thing"}]},
    context={"access": {"team": ["a", "b"]}, "accessFields": ["team:a", "team:b"], "x": {"y": 1}},
    commentType="manual",
    suggestion={"status": "pending", "replacement": "better", "nested": {"free": [1, 2]}},
    agent={
        "agentSource": "svc",
        "agentId": "spell-check",
        "agentType": "built-in",
        "url": "https://example.com/p#x",
        "reason": {"title": "T", "description": "D", "severity": "low", "extra": {"own": True}},
    },
    actions=[{"id": "fix", "label": "Fix", "metadata": {"k": "v"}}],
    statusUpdatedByUserId="ben",
    comments=[
        comment(
            1,
            USER,
            commentText="Hi {{ben}}",
            commentHtml="<p>Hi</p>",
            context={"c": 1},
            metadata={"m": [1]},
            isCommentResolverUsed=True,
            attachments=[{"attachmentId": 9, "name": "a.png", "metadata": {"w": 1}}],
            progress={
                "state": "active",
                "steps": [{"label": "one", "state": "completed", "startedAt": "2024-01-01"}],
                "startedAt": 5,
            },
            actions=[{"id": "go"}],
            taggedUserContacts=[
                {"userId": "ben", "text": "@ben", "contact": {"userId": "ben", "name": "Ben"}},
                {"userId": "eng", "text": "@eng", "group": {"groupId": "eng", "groupName": "E"}},
            ],
            reactionAnnotationIds=["r1"],
            reactionAnnotations=[
                {
                    "annotationId": "r1",
                    "type": "reaction",
                    "icon": "+1",
                    "commentAnnotationId": "a1",
                    "locationId": 123_456,
                    "location": {"id": "loc"},
                    "context": {"c": 1},
                    "lastUpdated": 7,
                    "fromUsers": [{"lastUpdated": 7, "from": {"userId": "ben"}}],
                }
            ],
            agent={"agentSource": "external", "agentName": "Lint", "reason": {"title": "T"}},
            sourceType="agent",
            to=[],
        ),
        comment(2, {"userId": "ben"}, status="updated"),
    ],
)


@pytest.mark.parametrize("body", [annotation(), FULL], ids=["minimal", "full"])
def test_stored_json_decodes_and_encodes_back_the_same(body: dict[str, Any]) -> None:
    decoded = msgspec.json.decode(msgspec.json.encode(body), type=Annotation)

    assert stored_json(decoded) == body
    assert msgspec.json.decode(msgspec.json.encode(decoded)) == body
    assert stored_json(msgspec.convert(copy.deepcopy(body), Annotation)) == body


def test_the_caller_s_own_fields_are_kept_and_typed_fields_read() -> None:
    decoded = msgspec.convert(FULL, Annotation)

    assert decoded.agent is not msgspec.UNSET
    assert decoded.agent.reason["extra"] == {"own": True}
    assert decoded.suggestion_status == "pending"
    root = decoded.root
    assert root is not None
    assert [t.userId for t in root.tagged] == ["ben", "eng"]
    assert root.reactions[0].reacted("ben")
    assert decoded.comment(2) is decoded.comments[1]
    assert decoded.comment(3) is None


def test_absent_fields_stay_absent_and_python_keywords_are_renamed() -> None:
    decoded = msgspec.convert(annotation(), Annotation)

    assert decoded.status is msgspec.UNSET
    assert decoded.suggestion_status is None
    assert decoded.from_.userId == "ana"
    encoded = stored_json(decoded)
    assert "from" in encoded
    assert "from_" not in encoded
    assert "status" not in encoded
    assert "commentHtml" not in encoded["comments"][0]


def test_the_audience_is_the_first_author_the_assignee_and_a_restricted_list() -> None:
    restricted = msgspec.convert(
        annotation(
            visibilityConfig={"type": "restricted", "userIds": ["cy", "dee", "cy"]},
            assignedTo={"userId": "ben"},
            comments=[comment(1, {"userId": "zed"})],
        ),
        Annotation,
    )
    public = msgspec.convert(
        annotation(visibilityConfig={"type": "public", "userIds": ["cy"]}, comments=[]),
        Annotation,
    )

    assert (restricted.visibility, restricted.creator_user_id) == ("restricted", "zed")
    assert (restricted.assigned_user_id, restricted.visible_to) == ("ben", ["cy", "dee"])
    # Without comments the annotation's `from` is its author; only a restricted one names users.
    assert (public.creator_user_id, public.assigned_user_id, public.visible_to) == ("ana", None, [])


def test_a_comment_of_another_shape_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="commentId"):
        msgspec.convert({**comment(1, USER), "commentId": "one"}, Comment)
