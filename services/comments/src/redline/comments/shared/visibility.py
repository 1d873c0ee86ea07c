"""Who sees an annotation: the one rule, as a Python predicate and as its SQL twin, side by side
so that a change to one is a change to both (a table test runs every case through each).

Document access is decided first (identity's access check); within a document a user-token
caller sees
- every `public` annotation, and every annotation they created;
- an `organizationPrivate` one unless they reach the document only because it is public;
- a `restricted` one (or one of a visibility this code does not know: the least access) when
  they are its assignee or named in its `visible_to`.
The key's own auth token (no user) sees everything.
"""

from __future__ import annotations

from collections.abc import Sequence

from redline.pg.conditions import Conditions


def may_see(
    user_id: str | None,
    *,
    visibility: str,
    creator_user_id: str | None,
    assigned_user_id: str | None,
    visible_to: Sequence[str],
    via_public: bool,
) -> bool:
    if user_id is None or visibility == "public" or creator_user_id == user_id:
        return True
    if visibility == "organizationPrivate":
        return not via_public
    return user_id == assigned_user_id or user_id in visible_to


def visibility_condition(b: Conditions, user_id: str, public_only_documents: list[str]) -> None:
    """`may_see` for the rows of the annotation table `a`, as a condition: `public_only_documents`
    are the documents the user reaches only because they are public."""
    user = b.param(user_id)
    public_only = b.param(public_only_documents)
    b.conditions.append(
        f"(a.visibility = 'public' OR a.creator_user_id = {user}"
        f" OR (a.visibility = 'organizationPrivate' AND NOT (a.document_id = ANY({public_only})))"
        f" OR (a.visibility NOT IN ('public', 'organizationPrivate')"
        f" AND ({user} = ANY(a.visible_to) OR a.assigned_user_id = {user})))"
    )
