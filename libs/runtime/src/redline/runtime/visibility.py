"""Who sees an annotation: the one rule, as a Python predicate and as its SQL twin, side by side
so that a change to one is a change to both (a table test runs every case through each), and the
facts of an annotation it reads (`Audience`, from the Annotation's own properties). Comments
applies it to readers (the predicate, and the SQL over its annotation table's columns); notify
applies it to the users a comment change notifies.

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
from dataclasses import dataclass

from redline.pg.conditions import Conditions
from redline.proto.annotation import Annotation


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


def seen_by_every_reader(alias: str, public_only: str) -> str:
    """The part of `may_see` that holds for every user-token reader of the rows of `alias`
    (visibility and document alone decide it): where it holds, counts need not ask who reads.
    `public_only` is the parameter holding the documents reached only because they are public."""
    return (
        f"({alias}.visibility = 'public' OR ({alias}.visibility = 'organizationPrivate'"
        f" AND NOT ({alias}.document_id = ANY({public_only}))))"
    )


@dataclass(frozen=True)
class Audience:
    """What the rule reads of an annotation (`redline.proto.annotation.Annotation` says it): its
    visibility type, the author of its first comment (else the annotation's `from`), its
    assignee, and for a `restricted` one the users its `visibilityConfig` names."""

    visibility: str
    creator_user_id: str | None
    assigned_user_id: str | None
    visible_to: list[str]

    @classmethod
    def of(cls, annotation: Annotation) -> Audience:
        return cls(
            visibility=annotation.visibility,
            creator_user_id=annotation.creator_user_id,
            assigned_user_id=annotation.assigned_user_id,
            visible_to=annotation.visible_to,
        )

    def sees(self, user_id: str | None, *, via_public: bool) -> bool:
        return may_see(
            user_id,
            visibility=self.visibility,
            creator_user_id=self.creator_user_id,
            assigned_user_id=self.assigned_user_id,
            visible_to=self.visible_to,
            via_public=via_public,
        )

    def depends_on_access(self, user_id: str) -> bool:
        """Whether the answer for the user turns on how they reach the document."""
        return self.sees(user_id, via_public=True) != self.sees(user_id, via_public=False)
