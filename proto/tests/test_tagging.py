"""Who a comment tags: users as given, groups replaced by their members, each user once; and
who a change tags, from its event."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.proto.events import AnnotationAdded, CommentAdded, StatusChanged
from redline.proto.tagging import tagged_by, tagged_by_event
from redline.testing.annotations import annotation, comment

ANA = {"userId": "ana", "name": "Ana", "email": "ana@example.com"}
BEN = {"userId": "ben"}
MEMBERS = {"eng": [ANA, BEN], "ops": [BEN]}


def group(group_id: str) -> dict[str, Any]:
    return {"userId": group_id, "text": f"@{group_id}", "group": {"groupId": group_id}}


def tagging(*entries: dict[str, Any], comment_id: int = 1) -> Any:
    return comment(comment_id, taggedUserContacts=list(entries))


def test_users_come_from_their_contacts_without_empty_fields() -> None:
    tags = tagging(
        {"userId": "zed", "contact": {"userId": "zed", "name": "Zed", "email": ""}},
        {"userId": "cy", "text": "@cy"},
        {"userId": "", "text": "@"},
    )

    assert tagged_by(tags) == [{"userId": "zed", "name": "Zed"}, {"userId": "cy"}]


def test_groups_are_replaced_by_their_members_each_user_once_where_first_tagged() -> None:
    tags = tagging(
        {"userId": "ben", "contact": {"userId": "ben", "name": "Ben B."}},
        group("eng"),
        group("ops"),
        group("gone"),
    )

    assert tagged_by(tags, MEMBERS) == [{"userId": "ben", "name": "Ben B."}, ANA]
    assert tagged_by(tags) == [{"userId": "ben", "name": "Ben B."}]
    assert tagged_by(None, MEMBERS) == []
    assert tagged_by(comment(), MEMBERS) == []


def event_fields(thread: Any) -> dict[str, Any]:
    return {
        "workspaceId": "ws",
        "apiKey": "key",
        "organizationId": "org",
        "documentId": "doc",
        "annotationId": "a1",
        "annotation": thread,
    }


def test_a_change_tags_whom_its_event_says_groups_expanded_when_it_was_written() -> None:
    tags = tagging(group("eng"))
    event = CommentAdded(
        **event_fields(annotation(comments=[tags])),
        commentId=1,
        comment=tags,
        taggedUsers=[ANA, BEN],
    )

    assert tagged_by_event(event) == [ANA, BEN]
    # Each user once; what names no user is left out.
    odd = msgspec.structs.replace(event, taggedUsers=[ANA, {"name": "no id"}, ANA, BEN])
    assert tagged_by_event(odd) == [ANA, BEN]


def test_without_the_events_list_the_comment_it_concerns_decides_groups_left_out() -> None:
    root = tagging({"userId": "cy"}, group("eng"))
    reply = tagging({"userId": "dee"}, comment_id=2)
    thread = annotation(comments=[root, reply])

    assert tagged_by_event(CommentAdded(**event_fields(thread), commentId=2, comment=reply)) == [
        {"userId": "dee"}
    ]
    # A change of the annotation concerns its root comment.
    assert tagged_by_event(StatusChanged(**event_fields(thread))) == [{"userId": "cy"}]
    assert tagged_by_event(AnnotationAdded(**event_fields(annotation(comments=[])))) == []
