"""The rules of adding an annotation that a schema cannot state, and the body they build around
its comments (whose rules are the shared ones of any new comment)."""

from __future__ import annotations

import hashlib
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from redline.comments.annotations.models import NewAnnotation
from redline.comments.shared.add_rules import (
    assign_comment_ids,
    comment_body,
    issue,
    resolve_context,
)
from redline.comments.shared.models import Priority, Status, all_stored, as_stored, given
from redline.envelope.errors import Issue
from redline.proto.annotation import (
    Action,
    Annotation,
    AnnotationMetadata,
    TargetElement,
    User,
    VisibilityConfig,
)
from redline.proto.annotation import Location as StoredLocation
from redline.proto.annotation import Priority as StoredPriority
from redline.proto.annotation import Status as StoredStatus

S = TypeVar("S", bound=msgspec.Struct)


def location_number(location_id: str) -> int:
    """The numeric `locationId` of a location: stable for its id, below 2**53 so JSON clients
    read it exactly."""
    return int.from_bytes(hashlib.sha256(location_id.encode()).digest()[:6], "big")


def check_status(status: Status, path: str, issues: list[Issue]) -> None:
    for name in ("color", "lightColor"):
        if getattr(status, name) is None:
            issue(issues, f"{path}.{name}", "Required when adding.", "missing_field")
    if status.svg is None and status.iconUrl is None:
        issue(issues, f"{path}.svg", "Either svg or iconUrl is required.", "missing_field")


def check_priority(priority: Priority, path: str, issues: list[Issue]) -> None:
    for name in ("color", "lightColor"):
        if getattr(priority, name) is None:
            issue(issues, f"{path}.{name}", "Required when adding.", "missing_field")


def annotation_body(
    entry: NewAnnotation,
    *,
    path: str,
    annotation_id: str,
    metadata: AnnotationMetadata,
    now: int,
    issues: list[Issue],
) -> Annotation:
    """An annotation as stored, without its number (given once it is sure to be written)."""
    if entry.status is not None:
        check_status(entry.status, f"{path}.status", issues)
    if entry.priority is not None:
        check_priority(entry.priority, f"{path}.priority", issues)
    ids = assign_comment_ids(entry.commentData, (), f"{path}.commentData", issues)
    created = entry.createdAt if entry.createdAt is not None else now
    comments = [
        comment_body(c, ids[i], created, f"{path}.commentData[{i}]", issues)
        for i, c in enumerate(entry.commentData)
    ]
    root = comments[0]
    # Agent findings are suggestions to accept or reject, whatever `type` the request gave.
    kind = "suggestion" if root.agent is not UNSET else (entry.type or "comment")
    location = entry.location
    return Annotation(
        annotationId=annotation_id,
        type=kind,
        sourceType="agent" if root.agent is not UNSET else "rest-api",
        createdAt=created,
        lastUpdated=entry.lastUpdated if entry.lastUpdated is not None else created,
        hasDraftComments=False,
        visibilityConfig=(
            as_stored(entry.visibility, VisibilityConfig)
            if entry.visibility
            else VisibilityConfig(type="public")
        ),
        metadata=metadata,
        from_=root.from_,
        comments=comments,
        location=UNSET if location is None else as_stored(location, StoredLocation),
        locationId=UNSET if location is None else location_number(location.id),
        targetElement=_stored(entry.targetElement, TargetElement),
        status=_stored(entry.status, StoredStatus),
        priority=_stored(entry.priority, StoredPriority),
        assignedTo=_stored(entry.assignedTo, User),
        context=given(resolve_context(entry.context, f"{path}.context", issues)),
        commentType=given(entry.commentType),
        actions=all_stored(entry.actions, Action),
        suggestion=_pending(entry.suggestion) if kind == "suggestion" else UNSET,
        agent=root.agent,
    )


def _stored(value: msgspec.Struct | None, shape: type[S]) -> S | UnsetType:
    return UNSET if value is None else as_stored(value, shape)


def _pending(proposed: dict[str, Any] | None) -> dict[str, Any]:
    """A new suggestion: the change as proposed, pending (its `status` is the server's)."""
    return {**{k: v for k, v in (proposed or {}).items() if k != "status"}, "status": "pending"}
