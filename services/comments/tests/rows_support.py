"""Annotation rows as the comments table stores them, for tests that write the table directly."""

from __future__ import annotations

from typing import Any

from redline.comments.shared import storage
from redline.testing.annotations import annotation


def annotation_row(
    annotation_id: str, document_id: str = "doc", number: int = 1, *, at: int = 1, **columns: Any
) -> storage.AnnotationRow:
    """A comment of key `key` in organization `org`, created and last updated `at`; `columns`
    sets any other column (its body stays the plain annotation)."""
    return storage.AnnotationRow(
        api_key="key",
        organization_id="org",
        document_id=document_id,
        annotation_id=annotation_id,
        annotation_number=number,
        type="comment",
        source_type="rest-api",
        created_at=at,
        last_updated=at,
        body=annotation(
            annotationId=annotation_id,
            metadata={"apiKey": "key", "organizationId": "org", "documentId": document_id},
        ),
        **columns,
    )
