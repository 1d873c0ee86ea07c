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

import msgspec
from msgspec import UNSET

from redline.proto.annotation import Annotation, Comment, stored_json
from redline.runtime.anonymise import anonymise


def _without_reactions_of(comment: Comment, user_id: str) -> Comment:
    if comment.reactionAnnotations is UNSET:
        return comment
    reactions = []
    for reaction in comment.reactionAnnotations:
        users = [entry for entry in reaction.fromUsers if entry.from_.userId != user_id]
        if users:
            reactions.append(msgspec.structs.replace(reaction, fromUsers=users))
    return msgspec.structs.replace(
        comment,
        reactionAnnotations=reactions,
        reactionAnnotationIds=[r.annotationId for r in reactions],
    )


def _untagged(comment: Comment, user_id: str) -> Comment:
    if comment.taggedUserContacts is UNSET:
        return comment
    kept = [entry for entry in comment.taggedUserContacts if entry.userId != user_id]
    return msgspec.structs.replace(comment, taggedUserContacts=kept)


def erase_from_body(body: Annotation, user_id: str, stand_in: str) -> Annotation | None:
    """The annotation `body` without `user_id`; None when nothing of it should stay."""
    comments = [
        _untagged(_without_reactions_of(comment, user_id), user_id)
        for comment in body.comments
        if comment.from_.userId != user_id
    ]
    if not comments:
        return None
    # The user may be anywhere in the stored JSON (the caller's own objects too): all of it is
    # anonymised.
    kept = anonymise(
        stored_json(msgspec.structs.replace(body, comments=comments)), user_id, stand_in
    )
    return msgspec.convert(kept, Annotation)
