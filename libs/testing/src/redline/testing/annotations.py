"""Stored annotations for tests of what reads them: the fields a test names, every other field
the stored JSON always has filled in, decoded into the Structs events carry."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.proto.annotation import Annotation, Comment, Reaction


def comment_json(comment_id: int = 1, author: str = "alice", **fields: Any) -> dict[str, Any]:
    """A stored comment's JSON: `fields` (by their JSON names) over a plain added comment."""
    return {
        "commentId": comment_id,
        "type": "text",
        "status": "added",
        "isDraft": False,
        "isCommentTextAvailable": True,
        "createdAt": 1_700_000_000_000,
        "lastUpdated": "2023-11-14T22:13:20.000Z",
        "from": {"userId": author},
        "sourceType": "rest-api",
        **fields,
    }


def annotation_json(**fields: Any) -> dict[str, Any]:
    """A stored annotation's JSON: `fields` (by their JSON names) over a public comment thread
    of one comment."""
    return {
        "annotationId": "a1",
        "type": "comment",
        "sourceType": "rest-api",
        "createdAt": 1_700_000_000_000,
        "lastUpdated": 1_700_000_000_000,
        "hasDraftComments": False,
        "visibilityConfig": {"type": "public"},
        "metadata": {"apiKey": "key", "organizationId": "org", "documentId": "doc"},
        "from": {"userId": "alice"},
        "comments": [comment_json()],
        **fields,
    }


def comment(comment_id: int = 1, author: str = "alice", **fields: Any) -> Comment:
    """`comment_json` as the Struct; `fields` may hold Structs."""
    plain = msgspec.to_builtins(fields)
    return msgspec.convert(comment_json(comment_id, author, **plain), Comment)


def annotation(**fields: Any) -> Annotation:
    """`annotation_json` as the Struct; `fields` may hold Structs (comments, say)."""
    return msgspec.convert(annotation_json(**msgspec.to_builtins(fields)), Annotation)


def reaction(icon: str = "+1", *users: str, **fields: Any) -> Reaction:
    """One icon's reaction by `users`, at time 1."""
    entries = [{"lastUpdated": 1, "from": {"userId": user}} for user in users]
    built = {
        "annotationId": f"r-{icon}",
        "type": "reaction",
        "icon": icon,
        "commentAnnotationId": "a1",
        "lastUpdated": 1,
        "fromUsers": entries,
        **fields,
    }
    return msgspec.convert(built, Reaction)
