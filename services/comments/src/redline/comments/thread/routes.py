"""The URL map of an annotation's comments: /v2/commentannotations/comments/add, get, update and
delete; get and delete are also served under /v1/, where Redline first placed them."""

from __future__ import annotations

from redline.comments.app_keys import COMMENTS
from redline.comments.thread.service import CommentService
from redline.envelope import Endpoint

# The hosted reference serves get and delete under /v2/; clients of earlier Redline use /v1/.
VERSIONS = ("v2", "v1")

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/commentannotations/comments/add",
        COMMENTS,
        CommentService.add,
        user_tokens=True,
        message="Comment(s) added successfully.",
        summary="Add comments to an annotation",
        tags=("comments",),
    ),
    *(
        Endpoint.of(
            f"/{version}/commentannotations/comments/get",
            COMMENTS,
            CommentService.get,
            user_tokens=True,
            message="Comments retrieved successfully.",
            summary="Get the comments of one annotation",
            tags=("comments",),
        )
        for version in VERSIONS
    ),
    *(
        Endpoint.of(
            f"/{version}/commentannotations/comments/delete",
            COMMENTS,
            CommentService.delete,
            user_tokens=True,
            message="Comments deleted successfully.",
            summary="Delete comments of an annotation (the root comment takes the thread with it)",
            tags=("comments",),
        )
        for version in VERSIONS
    ),
    Endpoint.of(
        "/v2/commentannotations/comments/update",
        COMMENTS,
        CommentService.update,
        user_tokens=True,
        message="Comment updated successfully.",
        summary="Change a comment's text, HTML or tagged users",
        tags=("comments",),
    ),
]
