"""The URL map of an annotation's comments: /v2/commentannotations/comments/add, get, update and
delete; get and delete are also served under /v1/, where Redline first placed them."""

from __future__ import annotations

from redline.comments.app_keys import COMMENTS
from redline.comments.comments import models
from redline.envelope import Call, Either, Endpoint


async def add_comments(call: Call, request: models.AddComments) -> list[int]:
    return await call.app[COMMENTS].add(call.api_key, request)


async def get_comments(call: Call, request: models.GetComments) -> list[models.CommentOut | None]:
    return await call.app[COMMENTS].get(call.api_key, request)


async def update_comment(
    call: Call, request: models.UpdateComment
) -> models.CommentResult | dict[str, models.CommentResult]:
    return await call.app[COMMENTS].update(call.api_key, request)


async def delete_comments(
    call: Call, request: models.DeleteComments
) -> dict[str, models.CommentResult]:
    return await call.app[COMMENTS].delete(call.api_key, request)


# The hosted reference serves get and delete under /v2/; clients of earlier Redline use /v1/.
VERSIONS = ("v2", "v1")

ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/commentannotations/comments/add",
        add_comments,
        models.AddComments,
        list[int],
        user_tokens=True,
        message="Comment(s) added successfully.",
        summary="Add comments to an annotation",
        tags=("comments",),
    ),
    *(
        Endpoint(
            f"/{version}/commentannotations/comments/get",
            get_comments,
            models.GetComments,
            list[models.CommentOut | None],
            user_tokens=True,
            message="Comments retrieved successfully.",
            summary="Get the comments of one annotation",
            tags=("comments",),
        )
        for version in VERSIONS
    ),
    *(
        Endpoint(
            f"/{version}/commentannotations/comments/delete",
            delete_comments,
            models.DeleteComments,
            dict[str, models.CommentResult],
            user_tokens=True,
            message="Comments deleted successfully.",
            summary="Delete comments of an annotation (the root comment takes the thread with it)",
            tags=("comments",),
        )
        for version in VERSIONS
    ),
    Endpoint(
        "/v2/commentannotations/comments/update",
        update_comment,
        models.UpdateComment,
        Either(models.CommentResult, dict[str, models.CommentResult]),
        user_tokens=True,
        message="Comment updated successfully.",
        summary="Change a comment's text, HTML or tagged users",
        tags=("comments",),
    ),
]
