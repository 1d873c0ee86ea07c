"""What erasing a user does to one annotation body."""

from __future__ import annotations

from typing import Any

from redline.comments.personal_data.erasure import erase_from_body


def _comment(comment_id: int, user: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"commentId": comment_id, "from": {"userId": user}, "commentText": text, **extra}


def _reaction(icon: str, *users: str) -> dict[str, Any]:
    return {
        "annotationId": f"r-{icon}",
        "icon": icon,
        "fromUsers": [{"from": {"userId": u}} for u in users],
    }


def test_an_annotation_of_only_the_users_comments_goes() -> None:
    body = {"from": {"userId": "erin"}, "comments": [_comment(1, "erin", "mine")]}
    assert erase_from_body(body, "erin", "anon") is None


def test_other_users_comments_stay_without_the_user() -> None:
    body = {
        "from": {"userId": "erin", "name": "Erin"},
        "assignedTo": {"userId": "erin", "email": "e@example.com"},
        "comments": [
            _comment(1, "erin", "opening"),
            _comment(
                2,
                "olga",
                "reply to {{erin}}",
                taggedUserContacts=[{"userId": "erin", "contact": {"userId": "erin"}}],
                reactionAnnotations=[_reaction("heart", "erin"), _reaction("fire", "erin", "sam")],
                reactionAnnotationIds=["r-heart", "r-fire"],
            ),
        ],
    }
    kept = erase_from_body(body, "erin", "anon")
    assert kept is not None
    [reply] = kept["comments"]
    assert reply["commentText"] == "reply to "
    assert reply["taggedUserContacts"] == []
    assert reply["reactionAnnotations"] == [_reaction("fire", "sam")]
    assert reply["reactionAnnotationIds"] == ["r-fire"]
    assert kept["from"] == {"userId": "anon", "name": "Deleted user"}
    assert kept["assignedTo"] == {"userId": "anon", "name": "Deleted user"}
    assert "erin" not in repr(kept)


def test_an_annotation_without_the_user_is_unchanged() -> None:
    body = {"from": {"userId": "olga"}, "comments": [_comment(1, "olga", "hi")]}
    assert erase_from_body(body, "erin", "anon") == body
