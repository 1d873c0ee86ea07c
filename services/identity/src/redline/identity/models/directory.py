"""Organizations, folders and documents: request and response Structs.

Fields beyond the named ones go in an explicit `metadata` object (see docs/decisions.md): a typo
in a named field stays an INVALID_ARGUMENT instead of turning silently into metadata.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from redline.identity.models.common import Id, Name, PageToken, Request

AccessType = Literal["public", "organizationPrivate", "restricted"]
Metadata = Annotated[
    dict[Annotated[str, Meta(min_length=1, max_length=128)], Any], Meta(max_length=64)
]
# Items of one add, update, delete, move or access change.
BATCH_MAX = 100
# Ids of one lookup (get by ids), as the hosted product limits them.
LOOKUP_MAX = 30
IdBatch = Annotated[list[Id], Meta(min_length=1, max_length=BATCH_MAX)]
IdLookup = Annotated[list[Id], Meta(min_length=1, max_length=LOOKUP_MAX)]
ListPageSize = Annotated[int, Meta(ge=1, le=1000)]
Depth = Annotated[int, Meta(ge=0, le=100)]


# per-item results ------------------------------------------------------------------------------


class ItemResult(msgspec.Struct, omit_defaults=True):
    """One entry of a result keyed by id. `code` is set on failures only: `already-exists`,
    `not-found` or `invalid-argument`."""

    success: bool
    id: str
    message: str
    code: str | None = None


class AccessResult(msgspec.Struct, omit_defaults=True):
    """One entry of an access change keyed by id. `accessType` is null while the folder
    inherits; `inheritFromParent` is present in that case only."""

    success: bool
    accessType: AccessType | None
    message: str
    inheritFromParent: bool | None = None
    code: str | None = None


# organizations ---------------------------------------------------------------------------------


class NewOrganization(Request):
    organizationId: Id
    organizationName: Name = ""
    metadata: Metadata | None = None


class AddOrganizations(Request):
    organizations: Annotated[list[NewOrganization], Meta(min_length=1, max_length=BATCH_MAX)]


class OrganizationChange(Request):
    organizationId: Id
    organizationName: Name | None = None
    # Merged into the stored metadata; a key set to null is removed.
    metadata: Metadata | None = None


class UpdateOrganizations(Request):
    organizations: Annotated[list[OrganizationChange], Meta(min_length=1, max_length=BATCH_MAX)]


class GetOrganizations(Request):
    # Absent: every organization of the API key.
    organizationIds: IdLookup | None = None
    pageSize: ListPageSize = 1000
    pageToken: PageToken | None = None


class OrganizationIds(Request):
    organizationIds: IdBatch


class Organization(msgspec.Struct):
    id: str
    organizationName: str
    metadata: dict[str, Any]
    createdAt: int
    lastUpdated: int


# folders ---------------------------------------------------------------------------------------


class NewFolder(Request):
    folderId: Id
    folderName: Name = ""
    # Absent or "root": at the organization's root.
    parentFolderId: Id | None = None
    accessType: AccessType | None = None
    inheritFromParent: bool | None = None
    metadata: Metadata | None = None


class AddFolders(Request):
    organizationId: Id
    folders: Annotated[list[NewFolder], Meta(min_length=1, max_length=BATCH_MAX)]
    createOrganization: bool = False


class FolderChange(Request):
    folderId: Id
    folderName: Name | None = None
    # A different parent moves the folder with everything under it; "root" moves it to the root.
    parentFolderId: Id | None = None
    metadata: Metadata | None = None


class UpdateFolders(Request):
    organizationId: Id
    folders: Annotated[list[FolderChange], Meta(min_length=1, max_length=BATCH_MAX)]


class GetFolders(Request):
    organizationId: Id
    # Absent: the organization's root folders.
    folderId: Id | None = None
    # Levels of `subFolders` under each returned folder; absent: all of them.
    maxDepth: Depth | None = None


class DeleteFolder(Request):
    organizationId: Id
    folderId: Id


class UpdateFolderAccess(Request):
    __openapi_any_of__ = (("accessType",), ("inheritFromParent",))

    organizationId: Id
    folderIds: IdBatch
    accessType: AccessType | None = None
    inheritFromParent: bool | None = None


class Folder(msgspec.Struct, omit_defaults=True):
    folderId: str
    folderName: str
    organizationId: str
    parentFolderId: str  # "root" at the organization's root
    ancestors: list[str]  # "root" first, then each folder down to the parent
    accessType: AccessType  # what applies after inheritance
    inheritAccessFromParent: bool
    metadata: dict[str, Any]
    createdAt: int
    lastUpdated: int
    # Absent on a folder without subfolders, or below `maxDepth`.
    subFolders: list[Folder] | None = None


# documents -------------------------------------------------------------------------------------


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


class GetDocuments(Request):
    organizationId: Id
    documentIds: IdLookup | None = None
    # Only documents directly in this folder; "root": those in no folder.
    folderId: Id | None = None
    pageSize: ListPageSize = 1000
    pageToken: PageToken | None = None


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
    metadata: dict[str, Any]
    createdAt: int
    lastUpdated: int
