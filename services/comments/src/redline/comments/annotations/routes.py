"""The URL map of annotations: /v2/commentannotations/add, get, count/get, update and delete."""

from __future__ import annotations

from redline.comments.annotations import models
from redline.comments.app_keys import ANNOTATIONS, READ
from redline.envelope import Call, Endpoint, Reply


async def add_annotations(call: Call, request: models.AddAnnotations) -> models.AddedAnnotations:
    return await call.app[ANNOTATIONS].add(call.api_key, request)


async def get_annotations(
    call: Call, request: models.GetAnnotations
) -> Reply[models.AnnotationList | models.GroupedAnnotations]:
    return await call.app[READ].get(call.api_key, request)


async def count_annotations(
    call: Call, request: models.CountAnnotations
) -> dict[str, models.DocumentCount]:
    return await call.app[READ].count(call.api_key, request)


async def update_annotations(
    call: Call, request: models.UpdateAnnotations
) -> dict[str, models.ItemResult]:
    return await call.app[ANNOTATIONS].update(call.api_key, request)


async def delete_annotations(
    call: Call, request: models.DeleteAnnotations
) -> dict[str, models.ItemResult]:
    return await call.app[ANNOTATIONS].delete(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/commentannotations/add",
        add_annotations,
        models.AddAnnotations,
        models.AddedAnnotations,
        user_tokens=True,
        message="Comment Annotation(s) added successfully.",
        summary="Add comment annotations, with their comments, to a document",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/get",
        get_annotations,
        models.GetAnnotations,
        models.AnnotationList | models.GroupedAnnotations,
        paged=True,
        user_tokens=True,
        message="Annotations retrieved successfully.",
        summary="Get comment annotations by document, location, user, status, agent or date",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/count/get",
        count_annotations,
        models.CountAnnotations,
        dict[str, models.DocumentCount],
        user_tokens=True,
        message="Annotation counts retrieved successfully.",
        summary="Count annotations per document, and those a user has not viewed",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/update",
        update_annotations,
        models.UpdateAnnotations,
        dict[str, models.ItemResult],
        user_tokens=True,
        message="Annotations updated successfully.",
        summary="Update a document's annotations, or rename a user in them",
        tags=("comments",),
    ),
    Endpoint(
        "/v2/commentannotations/delete",
        delete_annotations,
        models.DeleteAnnotations,
        dict[str, models.ItemResult],
        user_tokens=True,
        message="Annotations deleted successfully.",
        summary="Delete a document's annotations by id, location, author or agent",
        tags=("comments",),
    ),
]
