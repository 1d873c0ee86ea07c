"""The fields every comments event carries, and the event of an added comment, which both add
endpoints emit."""

from __future__ import annotations

from typing import Any

from redline.comments.shared.models import NewComment, ReplyComment
from redline.comments.shared.storage import AnnotationRow
from redline.comments.shared.tagged import Members, tagged_users
from redline.envelope.auth import ApiKeyPrincipal
from redline.proto.annotation import Comment, stored_json
from redline.proto.events.comments import CommentAdded


def event_fields(
    caller: ApiKeyPrincipal, row: AnnotationRow, action_user: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The fields every comments event of `row` carries, `annotation` as it is now. Without an
    `action_user`, a user token's user acts."""
    if action_user is None and caller.user_id is not None:
        action_user = {"userId": caller.user_id}
    return {
        "workspaceId": caller.workspace_id,
        "apiKey": row.api_key,
        "organizationId": row.organization_id,
        "documentId": row.document_id,
        "annotationId": row.annotation_id,
        "annotation": row.body,
        "actionUser": action_user,
    }


def comment_added(
    caller: ApiKeyPrincipal,
    row: AnnotationRow,
    comment: Comment,
    source: NewComment | ReplyComment,
    members: Members,
) -> CommentAdded:
    """`comment` (as stored) was added to `row`; its author acts, with the notification flags
    of the request's comment it came from (the comment add endpoint has none), and everyone it
    tags, groups expanded by `members`."""
    return CommentAdded(
        **event_fields(caller, row, stored_json(comment.from_)),
        commentId=comment.commentId,
        comment=comment,
        triggerNotification=getattr(source, "triggerNotification", None),
        triggerActivities=getattr(source, "triggerActivities", None),
        taggedUsers=tagged_users(comment, members),
    )
