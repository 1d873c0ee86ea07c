"""Documents: request and response Structs of /v2/organizations/documents/*."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from redline.identity.directory.models import (
    BATCH_MAX,
    IdBatch,
    IdLookup,
    ListPageSize,
    Metadata,
)
from redline.identity.fields import AccessType, Id, Name, PageToken, Request


class NewDocument(Request):
    documentId: Id
    documentName: Name = ""
    accessType: AccessType | None = None
    metadata: Metadata | None = None


class AddDocuments(Request):
    organizationId: Id
    documents: Annotated[list[NewDocument], Meta(min_length=1, max_length=BATCH_MAX)]
    createOrganization: bool = False
    # Absent or "root": not in a folder.
    folderId: Id | None = None
    createFolder: bool = False


class DocumentChange(Request):
    documentId: Id
    documentName: Name | None = None
    metadata: Metadata | None = None


class UpdateDocuments(Request):
    organizationId: Id
    documents: Annotated[list[DocumentChange], Meta(min_length=1, max_length=BATCH_MAX)]
    # The official SDK's switch: false replaces a document's `metadata` whole with the one given;
    # true or absent merges it in one level deep (a key set to null is removed).
    merge: bool | None = None


class GetDocuments(Request):
    organizationId: Id
    documentIds: IdLookup | None = None
    # Only documents directly in this folder; "root": those in no folder.
    folderId: Id | None = None
    pageSize: ListPageSize = 1000
    pageToken: PageToken | None = None
    # The official SDK's metadata filters, as documents/count/get takes them (all apply).
    filters: Annotated[list[DocumentFilter], Meta(max_length=10)] | None = None
    # The SDK's order by comment-view recency: views are the comments service's records, which
    # identity does not hold, so documents keep their id order (written in the decisions).
    orderByCommentViews: bool | None = None


class DocumentIds(Request):
    organizationId: Id
    documentIds: IdBatch


class MoveDocuments(Request):
    organizationId: Id
    documentIds: IdBatch
    # "root": out of any folder.
    folderId: Id


class UpdateDocumentAccess(Request):
    organizationId: Id
    documentIds: IdBatch
    accessType: AccessType


class Document(msgspec.Struct):
    id: str
    documentName: str
    organizationId: str
    folderId: str  # "root" when in no folder
    accessType: AccessType  # its own, else its folder's, else the service default
    # Disabled: read-only (see /v2/organizations/documents/access/disablestate/update).
    disabled: bool
    metadata: dict[str, Any]
    createdAt: int
    lastUpdated: int


# count -----------------------------------------------------------------------------------------

FilterOperator = Literal[
    "==", "!=", "<", "<=", ">", ">=", "in", "not-in", "array-contains", "array-contains-any"
]
# A metadata key, or a dotted path into it; `metadata.` in front is accepted and dropped.
FilterKey = Annotated[str, Meta(min_length=1, max_length=256)]
# Values of in, not-in and array-contains-any, as the hosted product bounds them.
FILTER_VALUES_MAX = 30


class DocumentFilter(Request):
    key: FilterKey
    operator: FilterOperator
    value: Any


class CountDocuments(Request):
    organizationId: Id
    excludeFolderDocs: bool = False
    # Only documents directly in this folder; "root": those in no folder.
    folderId: Id | None = None
    filters: Annotated[list[DocumentFilter], Meta(max_length=10)] | None = None


class DocumentCount(msgspec.Struct, omit_defaults=True):
    count: int
    # Sent when filters were: whether they were applied (Redline always applies them).
    filtersApplied: bool | None = None
