"""SQL of personal data in comments: the user's comments, reactions and the annotations that
involve them, and erasing them (the rule for one annotation is in `erasure`). Every statement is
scoped by API key and, when the job names some, organizations."""

from __future__ import annotations

from typing import Any

from redline.comments.personal_data.erasure import erase_from_body
from redline.comments.shared.columns import sync_columns
from redline.comments.shared.storage import delete_annotations, row_columns, row_of, save
from redline.pg import Connection
from redline.runtime.anonymise import stand_in_id
from redline.runtime.personal_data import DataKind, Subject

_IN_SCOPE = "a.api_key = $1 AND ($2::text[] IS NULL OR a.organization_id = ANY($2))"

# An annotation that names the user anywhere: the filter columns, or any user object in its
# body (reactions, the author, tagged contacts).
_INVOLVES = f"""
{_IN_SCOPE} AND (
    $3 = ANY(a.commenter_user_ids) OR $3 = ANY(a.mentioned_user_ids) OR $3 = ANY(a.visible_to)
    OR a.creator_user_id = $3 OR a.assigned_user_id = $3 OR a.resolved_by = $3
    OR jsonb_path_exists(a.body, '$.** ? (@.userId == $u)', jsonb_build_object('u', $3::text))
)
"""

_COMMENTS = f"""
SELECT a.organization_id, a.document_id, a.annotation_id, c.value AS comment
FROM comments.annotation a
CROSS JOIN LATERAL jsonb_array_elements(coalesce(a.body->'comments', '[]')) WITH ORDINALITY
    AS c(value, n)
WHERE {_IN_SCOPE} AND $3 = ANY(a.commenter_user_ids) AND c.value->'from'->>'userId' = $3
ORDER BY a.organization_id, a.annotation_id, c.n
OFFSET $4 LIMIT $5
"""  # noqa: S608 (constants only)

_REACTIONS = f"""
SELECT a.organization_id, a.document_id, a.annotation_id, c.value->'commentId' AS comment_id,
       r.value->>'annotationId' AS reaction_id, r.value->>'icon' AS icon,
       u.value->'lastUpdated' AS reacted_at
FROM comments.annotation a
CROSS JOIN LATERAL jsonb_array_elements(coalesce(a.body->'comments', '[]')) WITH ORDINALITY
    AS c(value, n)
CROSS JOIN LATERAL jsonb_array_elements(coalesce(c.value->'reactionAnnotations', '[]'))
    WITH ORDINALITY AS r(value, m)
CROSS JOIN LATERAL jsonb_array_elements(coalesce(r.value->'fromUsers', '[]')) AS u(value)
WHERE {_IN_SCOPE} AND u.value->'from'->>'userId' = $3
ORDER BY a.organization_id, a.annotation_id, c.n, r.m
OFFSET $4 LIMIT $5
"""  # noqa: S608 (constants only)

_ANNOTATIONS = f"""
SELECT a.organization_id, a.document_id, a.annotation_id, a.body FROM comments.annotation a
WHERE {_INVOLVES}
ORDER BY a.organization_id, a.annotation_id
OFFSET $4 LIMIT $5
"""  # noqa: S608 (constants only)


def _place(record: Any) -> dict[str, Any]:
    return {
        "organizationId": record["organization_id"],
        "documentId": record["document_id"],
        "annotationId": record["annotation_id"],
    }


async def export_comments(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    records = await conn.fetch(
        _COMMENTS, subject.api_key, subject.organization_scope, subject.user_id, offset, limit
    )
    return [{**_place(r), "comment": r["comment"]} for r in records]


async def export_reactions(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    records = await conn.fetch(
        _REACTIONS, subject.api_key, subject.organization_scope, subject.user_id, offset, limit
    )
    return [
        {
            **_place(r),
            "commentId": r["comment_id"],
            "reactionAnnotationId": r["reaction_id"],
            "icon": r["icon"],
            "lastUpdated": r["reacted_at"],
        }
        for r in records
    ]


async def export_annotations(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    records = await conn.fetch(
        _ANNOTATIONS, subject.api_key, subject.organization_scope, subject.user_id, offset, limit
    )
    return [{**_place(r), "annotation": r["body"]} for r in records]


async def erase_user(conn: Connection, subject: Subject) -> int:
    """Apply `erase_from_body` to every annotation naming the user; forget what they viewed."""
    records = await conn.fetch(
        f"SELECT {row_columns('a')} FROM comments.annotation a WHERE {_INVOLVES} FOR UPDATE",  # noqa: S608
        subject.api_key,
        subject.organization_scope,
        subject.user_id,
    )
    stand_in = stand_in_id()
    gone: dict[str, list[str]] = {}
    for record in records:
        row = row_of(record)
        body = erase_from_body(row.body, subject.user_id, stand_in)
        if body is None:
            gone.setdefault(row.organization_id, []).append(row.annotation_id)
            continue
        row.body = body
        sync_columns(row)
        if row.resolved_by == subject.user_id:
            row.resolved_by = stand_in
        await save(conn, row)
    for organization_id, annotation_ids in gone.items():
        await delete_annotations(conn, subject.api_key, organization_id, annotation_ids)
    await conn.execute(
        "DELETE FROM comments.annotation_view a WHERE "  # noqa: S608
        + _IN_SCOPE
        + " AND a.user_id = $3",
        subject.api_key,
        subject.organization_scope,
        subject.user_id,
    )
    return len(records)


COMMENT_KINDS = [
    # The user's comments and reactions go with the annotations they are in (`erase_user`).
    DataKind("comments", export_comments),
    DataKind("reactions", export_reactions),
    DataKind("annotations", export_annotations, erase_user),
]
