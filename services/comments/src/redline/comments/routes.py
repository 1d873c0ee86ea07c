"""The comments service's whole URL map (document 2 and decisions §2)."""

from __future__ import annotations

from redline.comments.handlers import add as add_handlers
from redline.comments.handlers import change as change_handlers
from redline.comments.handlers import read as read_handlers
from redline.comments.models import add as add_models
from redline.comments.models import change as change_models
from redline.comments.models import read as read_models
from redline.envelope import Endpoint

# /v2/commentannotations/add and /v2/commentannotations/comments/add.
ADD: list[Endpoint] = [
    Endpoint(
        "/v2/commentannotations/add",
        add_handlers.add_annotations,
        add_models.AddAnnotations,
        add_models.AddedAnnotations,
        user_tokens=True,
        message="Added Successfully",
        summary="Add comment annotations, with their comments, to a document",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/comments/add",
        add_handlers.add_comments,
        add_models.AddComments,
        list[int],
        user_tokens=True,
        message="Comment(s) added successfully.",
        summary="Add comments to an annotation",
        tags=("comments",),
    ),
]

# /v2/commentannotations/get, /v1/commentannotations/comments/get, /v2/commentannotations/count/get.
READ: list[Endpoint] = [
    Endpoint(
        "/v2/commentannotations/get",
        read_handlers.get_annotations,
        read_models.GetAnnotations,
        read_models.AnnotationList | read_models.GroupedAnnotations,
        paged=True,
        user_tokens=True,
        message="Annotations retrieved successfully.",
        summary="Get comment annotations by document, location, user, status, agent or date",
        tags=("comments",),
    ),
    Endpoint(
        "/v1/commentannotations/comments/get",
        read_handlers.get_comments,
        read_models.GetComments,
        list[read_models.CommentOut | None],
        user_tokens=True,
        message="Comments retrieved successfully.",
        summary="Get the comments of one annotation",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/count/get",
        read_handlers.count_annotations,
        read_models.CountAnnotations,
        dict[str, read_models.DocumentCount],
        user_tokens=True,
        message="Annotation counts retrieved successfully.",
        summary="Count annotations per document, and those a user has not viewed",
        tags=("comments",),
    ),
]

# update, delete, comments update/delete, reactions, suggestions/resolve.
CHANGE: list[Endpoint] = [
    Endpoint(
        "/v2/commentannotations/update",
        change_handlers.update_annotations,
        change_models.UpdateAnnotations,
        dict[str, change_models.ItemResult],
        user_tokens=True,
        message="Annotations updated successfully.",
        summary="Update a document's annotations, or rename a user in them",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/delete",
        change_handlers.delete_annotations,
        change_models.DeleteAnnotations,
        dict[str, change_models.ItemResult],
        user_tokens=True,
        message="Annotations deleted successfully.",
        summary="Delete a document's annotations by id, location, author or agent",
        tags=("comments",),
    ),
    Endpoint(
        "/v1/commentannotations/comments/delete",
        change_handlers.delete_comments,
        change_models.DeleteComments,
        dict[str, change_models.CommentResult],
        user_tokens=True,
        message="Comments deleted successfully.",
        summary="Delete comments of an annotation (the root comment takes the thread with it)",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/comments/update",
        change_handlers.update_comment,
        change_models.UpdateComment,
        change_models.CommentResult,
        user_tokens=True,
        message="Comment updated successfully.",
        summary="Change a comment's text, HTML or tagged users",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/reactions/add",
        change_handlers.add_reaction,
        change_models.Reaction,
        change_models.Document,
        user_tokens=True,
        message="Reaction added successfully.",
        summary="React to a comment with an icon",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/reactions/delete",
        change_handlers.delete_reaction,
        change_models.Reaction,
        change_models.Document,
        user_tokens=True,
        message="Reaction deleted successfully.",
        summary="Take back a reaction to a comment",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/suggestions/resolve",
        change_handlers.resolve_suggestion,
        change_models.ResolveSuggestion,
        change_models.Document,
        user_tokens=True,
        message="Suggestion resolved successfully.",
        summary="Accept or reject a pending suggestion",
        tags=("comments",),
    ),
]

ENDPOINTS = [*ADD, *READ, *CHANGE]
