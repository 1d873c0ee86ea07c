"""An annotation row's filter columns follow its body: every column `sync_columns` derives, and
`touch`, which moves `lastUpdated` but never back."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.comments.shared.columns import sync_columns, touch
from redline.comments.shared.storage import AnnotationRow
from redline.proto.annotation import Annotation
from redline.testing.annotations import annotation_json, comment_json


def _row(body: dict[str, Any]) -> AnnotationRow:
    # Columns left at their defaults, as if nothing had synced them yet.
    return AnnotationRow(
        api_key="key",
        organization_id="org",
        document_id="doc",
        annotation_id="a1",
        annotation_number=1,
        type="comment",
        source_type="rest-api",
        created_at=0,
        last_updated=0,
        body=msgspec.convert(body, Annotation),
    )


def _comment(author: str, text: str, tagged: tuple[str, ...] = ()) -> dict[str, Any]:
    return comment_json(
        author=author, commentText=text, taggedUserContacts=[{"userId": t} for t in tagged]
    )


def test_every_column_follows_from_the_body() -> None:
    row = _row(
        annotation_json(
            type="suggestion",
            sourceType="agent",
            suggestion={"status": "pending"},
            status={"id": "open", "name": "Open", "type": "default"},
            location={"id": "page-2"},
            assignedTo={"userId": "bo"},
            visibilityConfig={"type": "restricted", "userIds": ["cy", "cy", "di"]},
            agent={
                "agentId": "tone-check",
                "agentType": "built-in",
                "agentSource": "svc",
                "reason": {},
            },
            comments=[
                _comment("ana", "Look, {{bo}}", tagged=("bo",)),
                _comment("bo", "Seen {{ana}} and {{ed}}"),
                _comment("ana", "ok"),
            ],
            createdAt=10,
            lastUpdated=20,
        )
    )
    sync_columns(row)
    assert (row.type, row.source_type, row.suggestion_status) == ("suggestion", "agent", "pending")
    assert (row.status_id, row.status_type, row.location_id) == ("open", "default", "page-2")
    assert (row.creator_user_id, row.assigned_user_id) == ("ana", "bo")
    assert (row.visibility, row.visible_to) == ("restricted", ["cy", "di"])
    assert row.mentioned_user_ids == ["bo", "ana", "ed"]
    assert row.commenter_user_ids == ["ana", "bo"]
    assert (row.agent_id, row.agent_type, row.agent_source) == ("tone-check", "built-in", "svc")
    assert (row.created_at, row.last_updated) == (10, 20)


def test_visible_to_counts_only_for_restricted_annotations() -> None:
    row = _row(
        annotation_json(
            visibilityConfig={"type": "organizationPrivate", "userIds": ["cy"]},
            comments=[_comment("ana", "hi")],
            createdAt=1,
            lastUpdated=1,
        )
    )
    sync_columns(row)
    assert (row.visibility, row.visible_to) == ("organizationPrivate", [])


def test_touch_moves_last_updated_forward_only() -> None:
    row = _row(annotation_json(comments=[_comment("ana", "hi")], createdAt=1, lastUpdated=500))
    sync_columns(row)
    touch(row, 300)
    assert row.body.lastUpdated == row.last_updated == 500
    touch(row, 900)
    assert row.body.lastUpdated == row.last_updated == 900
