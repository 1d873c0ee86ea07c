"""What erasing a user does to one annotation body."""

from __future__ import annotations

from typing import Any

from redline.comments.personal_data.erasure import erase_from_body
from redline.proto.annotation import stored_json
from redline.testing.annotations import annotation, comment_json, reaction


def _comment(comment_id: int, user: str, text: str, **extra: Any) -> dict[str, Any]:
    return comment_json(comment_id, user, commentText=text, **extra)


def test_an_annotation_of_only_the_users_comments_goes() -> None:
    body = annotation(comments=[_comment(1, "erin", "mine")], **{"from": {"userId": "erin"}})
    assert erase_from_body(body, "erin", "anon") is None


def test_other_users_comments_stay_without_the_user() -> None:
    body = annotation(
        assignedTo={"userId": "erin", "email": "e@example.com"},
        comments=[
            _comment(1, "erin", "opening"),
            _comment(
                2,
                "olga",
                "reply to {{erin}}",
                taggedUserContacts=[{"userId": "erin", "contact": {"userId": "erin"}}],
                reactionAnnotations=[reaction("heart", "erin"), reaction("fire", "erin", "sam")],
                reactionAnnotationIds=["r-heart", "r-fire"],
            ),
        ],
        **{"from": {"userId": "erin", "name": "Erin"}},
    )
    kept = erase_from_body(body, "erin", "anon")
    assert kept is not None
    [reply] = kept.comments
    assert reply.commentText == "reply to "
    assert reply.taggedUserContacts == []
    assert reply.reactionAnnotations == [reaction("fire", "sam")]
    assert reply.reactionAnnotationIds == ["r-fire"]
    assert stored_json(kept)["from"] == {"userId": "anon", "name": "Deleted user"}
    assert stored_json(kept)["assignedTo"] == {"userId": "anon", "name": "Deleted user"}
    assert "erin" not in repr(kept)


def test_an_annotation_without_the_user_is_unchanged() -> None:
    body = annotation(comments=[_comment(1, "olga", "hi")], **{"from": {"userId": "olga"}})
    assert erase_from_body(body, "erin", "anon") == body
