"""Who a stored comment tags: users as given, groups replaced by their members, each user once."""

from __future__ import annotations

from typing import Any

from redline.comments.shared.tagged import stored_group_ids, tagged_users

ANA = {"userId": "ana", "name": "Ana", "email": "ana@example.com"}
BEN = {"userId": "ben"}
MEMBERS = {"eng": [ANA, BEN], "ops": [BEN]}


def group(group_id: str) -> dict[str, Any]:
    return {"userId": group_id, "text": f"@{group_id}", "group": {"groupId": group_id}}


def test_users_come_from_their_contacts_without_empty_fields() -> None:
    comment = {
        "taggedUserContacts": [
            {"userId": "zed", "contact": {"userId": "zed", "name": "Zed", "email": ""}},
            {"userId": "cy", "text": "@cy"},
        ]
    }

    assert tagged_users(comment, {}) == [{"userId": "zed", "name": "Zed"}, {"userId": "cy"}]


def test_groups_are_replaced_by_their_members_each_user_once_where_first_tagged() -> None:
    comment = {
        "taggedUserContacts": [
            {"userId": "ben", "contact": {"userId": "ben", "name": "Ben B."}},
            group("eng"),
            group("ops"),
            group("gone"),
        ]
    }

    assert tagged_users(comment, MEMBERS) == [{"userId": "ben", "name": "Ben B."}, ANA]


def test_entries_that_are_not_tagged_users_are_skipped() -> None:
    comment = {"taggedUserContacts": ["x", {"contact": ANA}, {"userId": 7}, {"group": "eng"}]}

    assert tagged_users(comment, MEMBERS) == []
    assert tagged_users(None, MEMBERS) == []
    assert tagged_users({}, MEMBERS) == []


def test_stored_group_ids_names_each_group_once() -> None:
    comments = [
        {"taggedUserContacts": [group("eng"), {"userId": "ana"}]},
        {"taggedUserContacts": [group("ops"), group("eng")]},
        {"commentText": "none"},
    ]

    assert stored_group_ids(comments) == ["eng", "ops"]
