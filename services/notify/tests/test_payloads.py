"""The raw and processed webhook payloads of every comment event, on the wire, with and without
data protection."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from redline.notify.webhooks.payloads import processed_payload, raw_payload
from redline.proto.events import (
    AnnotationAdded,
    AnnotationDeleted,
    AnnotationUpdated,
    Assigned,
    CommentAdded,
    CommentDeleted,
    CommentEvent,
    CommentsEvent,
    CommentUpdated,
    PriorityChanged,
    ReactionAdded,
    ReactionDeleted,
    StatusChanged,
    SuggestionAccepted,
    SuggestionRejected,
)
from redline.testing.annotations import annotation_json, comment_json

WEBHOOK_ID = "msg_e1_raw"
SECRET_TEXT = "the confidential body"
SECRET_HTML = "<p>the confidential html</p>"

USER = {"userId": "u1", "name": "Ann", "email": "ann@example.com"}
BOB = {"userId": "u2", "name": "Bob", "email": "bob@example.com"}
CARL = {"userId": "u3", "name": "Carl", "email": "carl@example.com"}
OPEN = {"id": "open", "name": "Open", "type": "default"}
RESOLVED = {"id": "resolved", "name": "Resolved", "type": "terminal"}

# (action type, event type) of each event class, as receivers know them.
EXPECTED: dict[type[CommentsEvent], tuple[str, str]] = {
    AnnotationAdded: ("newlyAdded", "comment_annotation.add"),
    AnnotationUpdated: ("updated", "comment_annotation.update"),
    AnnotationDeleted: ("deleted", "comment_annotation.delete"),
    StatusChanged: ("statusChanged", "comment_annotation.status_change"),
    Assigned: ("assigned", "comment_annotation.assign"),
    PriorityChanged: ("priorityChanged", "comment_annotation.priority_change"),
    SuggestionAccepted: ("accepted", "comment_annotation.suggestion_accept"),
    SuggestionRejected: ("rejected", "comment_annotation.suggestion_reject"),
    CommentAdded: ("added", "comment.add"),
    CommentUpdated: ("updated", "comment.update"),
    CommentDeleted: ("deleted", "comment.delete"),
    ReactionAdded: ("reactionAdded", "comment.reaction_add"),
    ReactionDeleted: ("reactionDeleted", "comment.reaction_delete"),
}
EVENT_TYPES = list(EXPECTED)

# Members of the raw payload only some events have, and which.
OPTIONAL_RAW: dict[type[CommentsEvent], set[str]] = {
    StatusChanged: {"oldStatus", "newStatus"},
    PriorityChanged: {"oldPriority", "newPriority"},
    Assigned: {"assigned"},
    ReactionAdded: {"targetComment", "reaction"},
    ReactionDeleted: {"targetComment", "reaction"},
    CommentAdded: {"targetComment"},
    CommentUpdated: {"targetComment"},
    CommentDeleted: {"targetComment"},
}
RAW_ALWAYS = {
    "webhookId",
    "actionType",
    "eventType",
    "notificationSource",
    "actionUser",
    "metadata",
    "commentAnnotation",
    "platform",
}
PROCESSED_ALWAYS = {
    "webhookId",
    "actionType",
    "eventType",
    "notificationSource",
    "from",
    "toContactsTagged",
    "documentId",
    "targetAnnotationId",
    "targetCommentId",
    "status",
}


def comment(comment_id: int, text: str, tagged: list[Any]) -> dict[str, Any]:
    return comment_json(
        comment_id,
        commentText=text,
        commentHtml=SECRET_HTML if text == SECRET_TEXT else f"<p>{text}</p>",
        taggedUserContacts=tagged,
        **{"from": USER},
    )


def annotation() -> dict[str, Any]:
    return annotation_json(
        annotationNumber=3,
        status=OPEN,
        priority={"id": "P1", "name": "High"},
        comments=[
            comment(1, SECRET_TEXT, [{"contact": BOB, "userId": "u2"}]),
            comment(2, "a reply " + SECRET_TEXT, [{"contact": CARL, "userId": "u3"}]),
        ],
    )


def target_comment() -> dict[str, Any]:
    return comment(2, "a reply " + SECRET_TEXT, [{"contact": CARL, "userId": "u3"}])


REACTION = {
    "annotationId": "r1",
    "type": "reaction",
    "icon": "thumbsup",
    "commentAnnotationId": "a1",
    "lastUpdated": 1,
    "fromUsers": [{"lastUpdated": 1, "from": BOB}],
}


# What each event type carries beyond the common fields.
EXTRA: dict[type[CommentsEvent], dict[str, Any]] = {
    StatusChanged: {"oldStatus": OPEN, "newStatus": RESOLVED},
    PriorityChanged: {
        "oldPriority": {"id": "P2", "name": "Low"},
        "newPriority": {"id": "P1", "name": "High"},
    },
    Assigned: {"assigned": BOB, "previouslyAssigned": CARL},
    AnnotationUpdated: {"changes": ["location"]},
    SuggestionAccepted: {"reason": "fine"},
    SuggestionRejected: {"reason": "no"},
    ReactionAdded: {"reaction": REACTION},
    ReactionDeleted: {"reaction": REACTION},
}


def make(event_type: type[CommentsEvent], **extra: Any) -> CommentsEvent:
    fields: dict[str, Any] = {
        "workspaceId": "ws1",
        "id": "e1",
        "apiKey": "key1",
        "organizationId": "org1",
        "documentId": "doc1",
        "annotationId": "a1",
        "annotation": annotation(),
        "actionUser": USER,
    }
    if issubclass(event_type, CommentEvent):
        fields |= {"commentId": 2, "comment": target_comment()}
    fields |= EXTRA.get(event_type, {})
    # From the event's JSON, as a consumer reads it.
    return msgspec.convert(fields | extra, event_type)


def wire(payload: msgspec.Struct) -> dict[str, Any]:
    decoded: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(payload))
    return decoded


def keys_anywhere(value: Any) -> set[str]:
    if isinstance(value, dict):
        found = set(value)
        for item in value.values():
            found |= keys_anywhere(item)
        return found
    if isinstance(value, list):
        return set().union(*(keys_anywhere(item) for item in value))
    return set()


def tagged_event_classes(base: type[CommentsEvent]) -> set[type[CommentsEvent]]:
    found = set()
    for sub in base.__subclasses__():
        tag = sub.__struct_config__.tag
        if isinstance(tag, str) and tag.startswith("comments."):
            found.add(sub)
        found |= tagged_event_classes(sub)
    return found


def test_every_comment_event_is_covered() -> None:
    assert tagged_event_classes(CommentsEvent) == set(EXPECTED)


@pytest.mark.parametrize("event_type", EVENT_TYPES, ids=lambda t: t.__name__)
def test_raw_payload(event_type: type[CommentsEvent]) -> None:
    event = make(event_type)
    action_type, trigger = EXPECTED[event_type]

    body = wire(raw_payload(WEBHOOK_ID, event, protect=False))

    assert set(body) == RAW_ALWAYS | OPTIONAL_RAW.get(event_type, set())
    assert body["webhookId"] == WEBHOOK_ID
    assert body["actionType"] == action_type
    assert body["eventType"] == trigger
    assert body["notificationSource"] == "comment"
    assert body["platform"] == "api"
    assert body["actionUser"] == USER
    assert body["metadata"] == {"apiKey": "key1", "organizationId": "org1", "documentId": "doc1"}
    assert body["commentAnnotation"] == annotation()
    if issubclass(event_type, CommentEvent):
        assert body["targetComment"] == target_comment()
    if event_type is StatusChanged:
        assert (body["oldStatus"], body["newStatus"]) == (OPEN, RESOLVED)
    if event_type is PriorityChanged:
        assert body["oldPriority"] == EXTRA[PriorityChanged]["oldPriority"]
        assert body["newPriority"] == EXTRA[PriorityChanged]["newPriority"]
    if event_type is Assigned:
        assert body["assigned"] == BOB
    if event_type in (ReactionAdded, ReactionDeleted):
        assert body["reaction"] == REACTION


@pytest.mark.parametrize(
    ("event_type", "absent", "present"),
    [
        (StatusChanged, {"oldStatus": None}, "newStatus"),
        (StatusChanged, {"newStatus": None}, "oldStatus"),
        (PriorityChanged, {"oldPriority": None}, "newPriority"),
        (Assigned, {"assigned": None}, None),
    ],
)
def test_raw_payload_leaves_out_members_the_event_lacks(
    event_type: type[CommentsEvent], absent: dict[str, Any], present: str | None
) -> None:
    body = wire(raw_payload(WEBHOOK_ID, make(event_type, **absent), protect=False))

    assert not set(absent) & set(body)
    if present is not None:
        assert present in body


def test_raw_payload_without_an_action_user_says_so() -> None:
    body = wire(raw_payload(WEBHOOK_ID, make(AnnotationAdded, actionUser=None), protect=False))

    assert body["actionUser"] is None


@pytest.mark.parametrize("event_type", EVENT_TYPES, ids=lambda t: t.__name__)
def test_processed_payload(event_type: type[CommentsEvent]) -> None:
    event = make(event_type)
    action_type, trigger = EXPECTED[event_type]

    body = wire(processed_payload(WEBHOOK_ID, event, protect=False))

    assert set(body) == PROCESSED_ALWAYS | {"commentText"}
    assert body["webhookId"] == WEBHOOK_ID
    assert body["actionType"] == action_type
    assert body["eventType"] == trigger
    assert body["notificationSource"] == "comment"
    assert body["from"] == USER
    assert body["documentId"] == "doc1"
    assert body["targetAnnotationId"] == "a1"
    assert body["status"] == OPEN
    if issubclass(event_type, CommentEvent):
        # The comment the event is about.
        assert body["commentText"] == "a reply " + SECRET_TEXT
        assert body["toContactsTagged"] == [CARL]
        assert body["targetCommentId"] == 2
    else:
        # The annotation's first comment.
        assert body["commentText"] == SECRET_TEXT
        assert body["toContactsTagged"] == [BOB]
        assert body["targetCommentId"] == 1


def test_processed_payload_tags_users_with_or_without_a_contact_and_no_group() -> None:
    tagged = [
        {"contact": BOB, "userId": "u2"},
        {"userId": "u3", "text": "@Carl"},
        {"userId": "eng", "group": {"groupId": "eng"}},
    ]
    event = make(CommentAdded, comment=comment(2, "hi", tagged))

    body = wire(processed_payload(WEBHOOK_ID, event, protect=False))

    # A group's members are not known here: its entry tags no one.
    assert body["toContactsTagged"] == [BOB, {"userId": "u3"}]


def test_processed_payload_of_an_annotation_without_comments() -> None:
    event = make(AnnotationDeleted, annotation=annotation_json(comments=[]), actionUser=None)

    body = wire(processed_payload(WEBHOOK_ID, event, protect=False))

    assert "commentText" not in body
    assert body["toContactsTagged"] == []
    assert body["targetCommentId"] is None
    assert body["status"] is None
    assert body["from"] is None


@pytest.mark.parametrize("event_type", EVENT_TYPES, ids=lambda t: t.__name__)
def test_data_protection_strips_comment_bodies_and_keeps_ids(
    event_type: type[CommentsEvent],
) -> None:
    event = make(event_type)
    before = copy.deepcopy(event.annotation)

    raw_bytes = msgspec.json.encode(raw_payload(WEBHOOK_ID, event, protect=True))
    processed_bytes = msgspec.json.encode(processed_payload(WEBHOOK_ID, event, protect=True))
    raw, processed = msgspec.json.decode(raw_bytes), msgspec.json.decode(processed_bytes)

    for encoded in (raw_bytes, processed_bytes):
        assert SECRET_TEXT.encode() not in encoded
        assert SECRET_HTML.encode() not in encoded
    for body in (raw, processed):
        assert not {"commentText", "commentHtml"} & keys_anywhere(body)
    # Ids, people and metadata stay.
    assert raw["metadata"] == {"apiKey": "key1", "organizationId": "org1", "documentId": "doc1"}
    assert raw["commentAnnotation"]["annotationId"] == "a1"
    assert [c["commentId"] for c in raw["commentAnnotation"]["comments"]] == [1, 2]
    assert raw["commentAnnotation"]["comments"][0]["from"] == USER
    assert raw["commentAnnotation"]["status"] == OPEN
    if issubclass(event_type, CommentEvent):
        assert raw["targetComment"]["commentId"] == 2
        assert raw["targetComment"]["taggedUserContacts"] == [{"contact": CARL, "userId": "u3"}]
    assert processed["targetAnnotationId"] == "a1"
    assert processed["documentId"] == "doc1"
    assert processed["targetCommentId"] == (2 if issubclass(event_type, CommentEvent) else 1)
    assert processed["toContactsTagged"]
    # The event itself is left as it was (it is shared with the other target).
    assert event.annotation == before
    unprotected = wire(raw_payload(WEBHOOK_ID, event, protect=False))
    assert unprotected["commentAnnotation"] == msgspec.to_builtins(before)
