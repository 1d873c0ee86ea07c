"""HTTP handlers of organizations, folders and documents: the caller's API key, the service.
(User tokens never reach them: the endpoints do not declare `user_tokens`.)"""

from __future__ import annotations

from redline.envelope import Call, Reply, paged
from redline.identity.app_keys import DOCUMENTS, FOLDERS, ORGANIZATIONS
from redline.identity.models import directory as models

Keyed = dict[str, models.ItemResult]
KeyedAccess = dict[str, models.AccessResult]


# organizations ---------------------------------------------------------------------------------


async def add_organizations(call: Call, request: models.AddOrganizations) -> Keyed:
    return await call.app[ORGANIZATIONS].add(call.api_key, request)


async def update_organizations(call: Call, request: models.UpdateOrganizations) -> Keyed:
    return await call.app[ORGANIZATIONS].update(call.api_key, request)


async def get_organizations(
    call: Call, request: models.GetOrganizations
) -> Reply[list[models.Organization]]:
    found, token = await call.app[ORGANIZATIONS].get(call.api_key, request)
    return paged(found, token)


async def delete_organizations(call: Call, request: models.OrganizationIds) -> Keyed:
    return await call.app[ORGANIZATIONS].delete(call.api_key, request)


# folders ---------------------------------------------------------------------------------------


async def add_folders(call: Call, request: models.AddFolders) -> Keyed:
    return await call.app[FOLDERS].add(call.api_key, request)


async def update_folders(call: Call, request: models.UpdateFolders) -> Keyed:
    return await call.app[FOLDERS].update(call.api_key, request)


async def get_folders(call: Call, request: models.GetFolders) -> list[models.Folder]:
    return await call.app[FOLDERS].get(call.api_key, request)


async def delete_folder(call: Call, request: models.DeleteFolder) -> None:
    await call.app[FOLDERS].delete(call.api_key, request)


async def update_folder_access(call: Call, request: models.UpdateFolderAccess) -> KeyedAccess:
    return await call.app[FOLDERS].update_access(call.api_key, request)


# documents -------------------------------------------------------------------------------------


async def add_documents(call: Call, request: models.AddDocuments) -> Keyed:
    return await call.app[DOCUMENTS].add(call.api_key, request)


async def update_documents(call: Call, request: models.UpdateDocuments) -> Keyed:
    return await call.app[DOCUMENTS].update(call.api_key, request)


async def get_documents(call: Call, request: models.GetDocuments) -> Reply[list[models.Document]]:
    found, token = await call.app[DOCUMENTS].get(call.api_key, request)
    # The hosted product names this endpoint's token `pageToken`; both names are sent.
    return paged(found, token, also_as_page_token=True)


async def delete_documents(call: Call, request: models.DocumentIds) -> Keyed:
    return await call.app[DOCUMENTS].delete(call.api_key, request)


async def move_documents(call: Call, request: models.MoveDocuments) -> Keyed:
    return await call.app[DOCUMENTS].move(call.api_key, request)


async def update_document_access(call: Call, request: models.UpdateDocumentAccess) -> KeyedAccess:
    return await call.app[DOCUMENTS].update_access(call.api_key, request)
