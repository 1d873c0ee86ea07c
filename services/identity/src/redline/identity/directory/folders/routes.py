"""The URL map of folders: /v2/organizations/folders/add|update|get|delete and access/update."""

from __future__ import annotations

from redline.envelope import Endpoint
from redline.identity.app_keys import FOLDERS
from redline.identity.directory.folders.service import FolderService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/organizations/folders/add",
        FOLDERS,
        FolderService.add,
        message="Folder created successfully.",
        summary="Add folders; a parent may be added earlier in the same request",
        tags=("folders",),
    ),
    Endpoint.of(
        "/v2/organizations/folders/update",
        FOLDERS,
        FolderService.update,
        message="Folder Updated successfully.",
        summary="Rename folders, or move them with everything under them",
        tags=("folders",),
    ),
    Endpoint.of(
        "/v2/organizations/folders/get",
        FOLDERS,
        FolderService.get,
        paged=True,
        message="Folder(s) retrieved successfully.",
        summary="Get a folder, or the root folders, with their subfolders down to maxDepth",
        tags=("folders",),
    ),
    Endpoint.of(
        "/v2/organizations/folders/delete",
        FOLDERS,
        FolderService.delete,
        message="Folder deleted successfully.",
        summary="Delete a folder with its subfolders, their documents and users' grants",
        tags=("folders",),
    ),
    Endpoint.of(
        "/v2/organizations/folders/access/update",
        FOLDERS,
        FolderService.update_access,
        message="Updated access for folders successfully.",
        summary="Set folders' access type, or make them inherit it from their parents",
        tags=("folders",),
    ),
]
