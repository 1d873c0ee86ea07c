"""The one rule for a user erased from stored JSON that other users' records keep."""

from __future__ import annotations

from redline.runtime.anonymise import DELETED_USER_NAME, anonymise


def test_a_user_object_keeps_record_fields_and_loses_the_person() -> None:
    value = {
        "reviewers": [
            {"userId": "erin", "name": "Erin", "email": "e@example.com", "mandatory": True},
            {"userId": "olga", "name": "Olga", "mandatory": False},
        ]
    }
    assert anonymise(value, "erin", "anon") == {
        "reviewers": [
            {"userId": "anon", "name": DELETED_USER_NAME, "mandatory": True},
            {"userId": "olga", "name": "Olga", "mandatory": False},
        ]
    }


def test_ids_under_user_keys_map_keys_and_mentions_are_replaced() -> None:
    value = {
        "responses": {"erin": {"decision": "approve"}, "olga": {"decision": "reject"}},
        "rejectedBy": "erin",
        "visibilityConfig": {"userIds": ["olga", "erin"]},
        "commentText": "ping {{erin}} and {{olga}}",
        "documentId": "erin",
    }
    assert anonymise(value, "erin", "anon") == {
        "responses": {"anon": {"decision": "approve"}, "olga": {"decision": "reject"}},
        "rejectedBy": "anon",
        "visibilityConfig": {"userIds": ["olga", "anon"]},
        "commentText": "ping  and {{olga}}",
        # Not a key that names users: an id that merely looks the same stays.
        "documentId": "erin",
    }


def test_inside_a_user_object_other_fields_are_anonymised_too() -> None:
    tagged = {"userId": "erin", "contact": {"userId": "erin", "email": "e@example.com"}}
    assert anonymise(tagged, "erin", "anon") == {
        "userId": "anon",
        "contact": {"userId": "anon", "name": DELETED_USER_NAME},
        "name": DELETED_USER_NAME,
    }


def test_the_input_is_left_as_it_was() -> None:
    value = {"from": {"userId": "erin", "name": "Erin"}}
    anonymise(value, "erin", "anon")
    assert value == {"from": {"userId": "erin", "name": "Erin"}}
