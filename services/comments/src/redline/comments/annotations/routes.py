"""The URL map of annotations: /v2/commentannotations/add, get, count/get, update and delete."""

from __future__ import annotations

from redline.comments.annotations.reading import ReadService
from redline.comments.annotations.service import AnnotationService
from redline.comments.app_keys import ANNOTATIONS, READ
from redline.envelope import Endpoint

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/commentannotations/add",
        ANNOTATIONS,
        AnnotationService.add,
        user_tokens=True,
        message="Comment Annotation(s) added successfully.",
        summary="Add comment annotations, with their comments, to a document",
        tags=("comments",),
    ),
    Endpoint.of(
        "/v2/commentannotations/get",
        READ,
        ReadService.get,
        paged=True,
        user_tokens=True,
        message="Annotations retrieved successfully.",
        summary="Get comment annotations by document, location, user, status, agent or date",
        tags=("comments",),
    ),
    Endpoint.of(
        "/v2/commentannotations/count/get",
        READ,
        ReadService.count,
        user_tokens=True,
        message="Annotation counts retrieved successfully.",
        summary="Count annotations per document, and those a user has not viewed",
        tags=("comments",),
    ),
    Endpoint.of(
        "/v2/commentannotations/update",
        ANNOTATIONS,
        AnnotationService.update,
        user_tokens=True,
        message="Annotations updated successfully.",
        summary="Update a document's annotations, or rename a user in them",
        tags=("comments",),
    ),
    Endpoint.of(
        "/v2/commentannotations/delete",
        ANNOTATIONS,
        AnnotationService.delete,
        user_tokens=True,
        message="Annotations deleted successfully.",
        summary="Delete a document's annotations by id, location, author or agent",
        tags=("comments",),
    ),
]
