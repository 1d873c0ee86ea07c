"""The URL map of folders: /v2/organizations/folders/add|update|get|delete and access/update."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Reply
from redline.identity.app_keys import FOLDERS
from redline.identity.directory.folders import models
from redline.identity.directory.models import AccessResult, ItemResult


async def add_folders(call: Call, request: models.AddFolders) -> dict[str, ItemResult]:
    return await call.app[FOLDERS].add(call.api_key, request)


async def update_folders(call: Call, request: models.UpdateFolders) -> dict[str, ItemResult]:
    return await call.app[FOLDERS].update(call.api_key, request)


async def get_folders(call: Call, request: models.GetFolders) -> Reply[list[models.Folder]]:
    return await call.app[FOLDERS].get(call.api_key, request)


async def delete_folder(call: Call, request: models.DeleteFolder) -> None:
    await call.app[FOLDERS].delete(call.api_key, request)


async def update_folder_access(
    call: Call, request: models.UpdateFolderAccess
) -> dict[str, AccessResult]:
    return await call.app[FOLDERS].update_access(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/organizations/folders/add",
        add_folders,
        models.AddFolders,
        dict[str, ItemResult],
        message="Folder created successfully.",
        summary="Add folders; a parent may be added earlier in the same request",
        tags=("folders",),
    ),
    Endpoint(
        "/v2/organizations/folders/update",
        update_folders,
        models.UpdateFolders,
        dict[str, ItemResult],
        message="Folder Updated successfully.",
        summary="Rename folders, or move them with everything under them",
        tags=("folders",),
    ),
    Endpoint(
        "/v2/organizations/folders/get",
        get_folders,
        models.GetFolders,
        list[models.Folder],
        paged=True,
        message="Folder(s) retrieved successfully.",
        summary="Get a folder, or the root folders, with their subfolders down to maxDepth",
        tags=("folders",),
    ),
    Endpoint(
        "/v2/organizations/folders/delete",
        delete_folder,
        models.DeleteFolder,
        None,
        message="Folder deleted successfully.",
        summary="Delete a folder with its subfolders, their documents and users' grants",
        tags=("folders",),
    ),
    Endpoint(
        "/v2/organizations/folders/access/update",
        update_folder_access,
        models.UpdateFolderAccess,
        dict[str, AccessResult],
        message="Updated access for folders successfully.",
        summary="Set folders' access type, or make them inherit it from their parents",
        tags=("folders",),
    ),
]
