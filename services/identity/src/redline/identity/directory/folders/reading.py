"""Reading folders: a folder as answered, and the root folders in pages (the official SDK's
`pageSize`/`pageToken`; root folders oldest first, then by id)."""

from __future__ import annotations

from typing import cast

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity.directory.folders import models
from redline.identity.directory.folders.storage import FolderRow
from redline.identity.directory.rules import ROOT
from redline.identity.fields import AccessType
from redline.proto.events import epoch_ms

_PAGE_KIND = "folders"
DEFAULT_PAGE_SIZE = 1000


def folder(row: FolderRow, api_key: str, organization_id: str) -> models.Folder:
    return models.Folder(
        folderId=row.folder_id,
        folderName=row.name,
        organizationId=organization_id,
        apiKey=api_key,
        parentFolderId=row.parent_folder_id or ROOT,
        ancestors=[ROOT, *row.ancestors],
        accessType=cast(AccessType, row.effective_access_type),
        inheritAccessFromParent=row.inherit_from_parent,
        metadata=row.metadata,
        createdAt=epoch_ms(row.created_at),
        lastUpdated=epoch_ms(row.updated_at),
    )


class _FolderCursor(msgspec.Struct, array_like=True):
    # The listing a token continues (a token of another organization is refused), and the last
    # root folder it gave.
    api_key: str
    organization_id: str
    created_at: int
    folder_id: str


def _paging(request: models.GetFolders) -> bool:
    return request.pageSize is not None or request.pageToken is not None


def listing_start(
    pages: PageTokens, caller: ApiKeyPrincipal, request: models.GetFolders
) -> _FolderCursor | None:
    """Where a listing of root folders goes on from (None: its start), once the request is
    checked: none of rootFoldersOnly, pageSize and pageToken goes with folderId."""
    if request.folderId is not None and (request.rootFoldersOnly or _paging(request)):
        raise InvalidArgument.field(
            "data.folderId", "folderId cannot go with rootFoldersOnly, pageSize or pageToken."
        )
    if request.pageToken is None:
        return None
    after = pages.decode(caller.workspace_id, _PAGE_KIND, request.pageToken, _FolderCursor)
    if (after.api_key, after.organization_id) != (caller.api_key, request.organizationId):
        raise InvalidArgument.field("data.pageToken", "Invalid page token.")
    return after


def page_of_roots(
    pages: PageTokens,
    caller: ApiKeyPrincipal,
    request: models.GetFolders,
    tops: list[models.Folder],
    after: _FolderCursor | None,
) -> Reply[list[models.Folder]]:
    """The answer: every top folder, or, when the request pages, the page after `after`."""
    if not _paging(request):
        return paged(tops, None)
    if after is not None:
        last_given = (after.created_at, after.folder_id)
        tops = [f for f in tops if (f.createdAt, f.folderId) > last_given]
    size = request.pageSize or DEFAULT_PAGE_SIZE
    token = None
    if len(tops) > size:
        last = tops[size - 1]
        cursor = _FolderCursor(
            caller.api_key, request.organizationId, last.createdAt, last.folderId
        )
        token = pages.encode(caller.workspace_id, _PAGE_KIND, cursor)
    return paged(tops[:size], token, also_as_page_token=True)
