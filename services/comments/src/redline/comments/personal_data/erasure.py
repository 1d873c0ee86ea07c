"""What erasing a user does to one annotation (the hosted product's reference: a deleted user's
comments and reactions go, and so do @mentions of them).

- The user's comments are removed, with the reactions on them.
- The user's reactions on other users' comments are removed (a reaction left with no user goes).
- The user is taken out of other comments' tagged contacts, and `{{userId}}` mentions of them are
  removed from texts.
- An annotation left without comments is deleted. One that keeps other users' comments stays,
  and every other trace of the user in it (its author, assignee, resolver, visibility list) is
  anonymised (`redline.runtime.anonymise`): those comments are other users' data.
"""

from __future__ import annotations

from typing import Any

from redline.comments.shared.columns import user_id_of
from redline.runtime.anonymise import anonymise


def _without_reactions_of(comment: dict[str, Any], user_id: str) -> dict[str, Any]:
    reactions = []
    for reaction in comment.get("reactionAnnotations") or []:
        users = [
            entry
            for entry in reaction.get("fromUsers") or []
            if user_id_of(entry.get("from")) != user_id
        ]
        if users:
            reactions.append({**reaction, "fromUsers": users})
    if "reactionAnnotations" not in comment:
        return comment
    return {
        **comment,
        "reactionAnnotations": reactions,
        "reactionAnnotationIds": [r["annotationId"] for r in reactions],
    }


def _untagged(comment: dict[str, Any], user_id: str) -> dict[str, Any]:
    if "taggedUserContacts" not in comment:
        return comment
    contacts = comment.get("taggedUserContacts") or []
    kept = [c for c in contacts if user_id_of(c) != user_id]
    return {**comment, "taggedUserContacts": kept}


def erase_from_body(body: dict[str, Any], user_id: str, stand_in: str) -> dict[str, Any] | None:
    """The annotation `body` without `user_id`; None when nothing of it should stay."""
    comments = [
        _untagged(_without_reactions_of(comment, user_id), user_id)
        for comment in body.get("comments") or []
        if user_id_of(comment.get("from")) != user_id
    ]
    if not comments:
        return None
    kept: dict[str, Any] = anonymise({**body, "comments": comments}, user_id, stand_in)
    return kept
