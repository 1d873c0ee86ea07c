"""The URL map of documents: /v2/organizations/documents/add|update|get|delete|move,
access/update and count/get."""

from __future__ import annotations

from redline.envelope import Call, Endpoint
from redline.identity.app_keys import DOCUMENTS
from redline.identity.directory.documents import counting, models
from redline.identity.directory.documents.service import DocumentService
from redline.runtime.resources import POOL


async def count_documents(call: Call, request: models.CountDocuments) -> models.DocumentCount:
    return await counting.count_documents(call.app[POOL], call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/organizations/documents/add",
        DOCUMENTS,
        DocumentService.add,
        message="Document(s) added successfully.",
        summary="Add documents, optionally in a folder",
        tags=("documents",),
    ),
    Endpoint.of(
        "/v2/organizations/documents/update",
        DOCUMENTS,
        DocumentService.update,
        message="Document(s) updated successfully.",
        summary="Rename documents and merge into their metadata",
        tags=("documents",),
    ),
    Endpoint.of(
        "/v2/organizations/documents/get",
        DOCUMENTS,
        DocumentService.get,
        paged=True,
        message="Document(s) retrieved successfully.",
        summary="Get documents by id, in a folder, or all, a page at a time",
        tags=("documents",),
    ),
    Endpoint.handled(
        "/v2/organizations/documents/count/get",
        count_documents,
        message="Documents count retrieved successfully.",
        summary="Count an organization's documents, in a folder or by metadata filters",
        tags=("documents",),
    ),
    Endpoint.of(
        "/v2/organizations/documents/delete",
        DOCUMENTS,
        DocumentService.delete,
        message="Document(s) deleted successfully.",
        summary="Delete documents and users' grants on them",
        tags=("documents",),
    ),
    Endpoint.of(
        "/v2/organizations/documents/move",
        DOCUMENTS,
        DocumentService.move,
        message="Documents moved successfully.",
        summary="Move documents into a folder, or out of any folder",
        tags=("documents",),
    ),
    Endpoint.of(
        "/v2/organizations/documents/access/update",
        DOCUMENTS,
        DocumentService.update_access,
        message="Updated access for documents successfully.",
        summary="Set documents' own access type",
        tags=("documents",),
    ),
]
