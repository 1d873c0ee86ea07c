"""Folders: request and response Structs of /v2/organizations/folders/*."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from redline.identity.directory.models import BATCH_MAX, IdBatch, Metadata
from redline.identity.fields import AccessType, Id, Name, Request

Depth = Annotated[int, Meta(ge=0, le=100)]


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
    # The official SDK's listing of the root folders: only them (no subfolders), and in pages
    # of root folders (each with its subfolders). None of the three goes with `folderId`.
    rootFoldersOnly: bool = False
    pageSize: Annotated[int, Meta(ge=1, le=1000)] | None = None
    pageToken: Annotated[str, Meta(min_length=1, max_length=1024)] | None = None


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
    apiKey: str  # the API key the folder belongs to, as the hosted product answers it
    parentFolderId: str  # "root" at the organization's root
    ancestors: list[str]  # "root" first, then each folder down to the parent
    accessType: AccessType  # what applies after inheritance
    inheritAccessFromParent: bool
    metadata: dict[str, Any]
    createdAt: int
    lastUpdated: int
    # Absent on a folder without subfolders, or below `maxDepth`.
    subFolders: list[Folder] | None = None
