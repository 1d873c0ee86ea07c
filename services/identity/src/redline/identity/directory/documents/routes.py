"""The URL map of documents: /v2/organizations/documents/add|update|get|delete|move,
access/update and count/get."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Reply
from redline.identity.app_keys import DOCUMENTS
from redline.identity.directory.documents import counting, models
from redline.identity.directory.models import AccessResult, ItemResult
from redline.runtime.resources import POOL


async def add_documents(call: Call, request: models.AddDocuments) -> dict[str, ItemResult]:
    return await call.app[DOCUMENTS].add(call.api_key, request)


async def update_documents(call: Call, request: models.UpdateDocuments) -> dict[str, ItemResult]:
    return await call.app[DOCUMENTS].update(call.api_key, request)


async def get_documents(call: Call, request: models.GetDocuments) -> Reply[list[models.Document]]:
    return await call.app[DOCUMENTS].get(call.api_key, request)


async def delete_documents(call: Call, request: models.DocumentIds) -> dict[str, ItemResult]:
    return await call.app[DOCUMENTS].delete(call.api_key, request)


async def move_documents(call: Call, request: models.MoveDocuments) -> dict[str, ItemResult]:
    return await call.app[DOCUMENTS].move(call.api_key, request)


async def update_document_access(
    call: Call, request: models.UpdateDocumentAccess
) -> dict[str, AccessResult]:
    return await call.app[DOCUMENTS].update_access(call.api_key, request)


async def count_documents(call: Call, request: models.CountDocuments) -> models.DocumentCount:
    return await counting.count_documents(call.app[POOL], call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/organizations/documents/add",
        add_documents,
        models.AddDocuments,
        dict[str, ItemResult],
        message="Document(s) added successfully.",
        summary="Add documents, optionally in a folder",
        tags=("documents",),
    ),
    Endpoint(
        "/v2/organizations/documents/update",
        update_documents,
        models.UpdateDocuments,
        dict[str, ItemResult],
        message="Document(s) updated successfully.",
        summary="Rename documents and merge into their metadata",
        tags=("documents",),
    ),
    Endpoint(
        "/v2/organizations/documents/get",
        get_documents,
        models.GetDocuments,
        list[models.Document],
        paged=True,
        message="Document(s) retrieved successfully.",
        summary="Get documents by id, in a folder, or all, a page at a time",
        tags=("documents",),
    ),
    Endpoint(
        "/v2/organizations/documents/count/get",
        count_documents,
        models.CountDocuments,
        models.DocumentCount,
        message="Documents count retrieved successfully.",
        summary="Count an organization's documents, in a folder or by metadata filters",
        tags=("documents",),
    ),
    Endpoint(
        "/v2/organizations/documents/delete",
        delete_documents,
        models.DocumentIds,
        dict[str, ItemResult],
        message="Document(s) deleted successfully.",
        summary="Delete documents and users' grants on them",
        tags=("documents",),
    ),
    Endpoint(
        "/v2/organizations/documents/move",
        move_documents,
        models.MoveDocuments,
        dict[str, ItemResult],
        message="Documents moved successfully.",
        summary="Move documents into a folder, or out of any folder",
        tags=("documents",),
    ),
    Endpoint(
        "/v2/organizations/documents/access/update",
        update_document_access,
        models.UpdateDocumentAccess,
        dict[str, AccessResult],
        message="Updated access for documents successfully.",
        summary="Set documents' own access type",
        tags=("documents",),
    ),
]
