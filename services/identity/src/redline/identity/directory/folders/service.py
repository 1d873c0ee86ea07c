"""Folders of an organization: add, update (rename, move), get as a tree, delete, access.

Every change runs under the organization's lock (see `lock_organization`) and commits with its
events; one that may change effective access also emits `identity.access.changed`.
"""

from __future__ import annotations

from typing import cast

from redline.envelope import PageTokens, Reply
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument, OutOfRange
from redline.identity import errors
from redline.identity.access_changes import (
    FORGET_NOTHING,
    ForgetAccess,
    access_changed_event,
    forget_if_access_changed,
)
from redline.identity.directory.ensure import (
    ensure_organization,
    lock_organization_or_fail,
    lock_writable_organization,
)
from redline.identity.directory.folders import models, reading, storage
from redline.identity.directory.folders.storage import FolderRow
from redline.identity.directory.models import AccessResult, ItemResult
from redline.identity.directory.rules import (
    ACCESS_TYPES,
    ALREADY_EXISTS,
    INHERIT,
    INVALID,
    MAX_FOLDER_DEPTH,
    NOT_FOUND,
    build_tree,
    check_entries,
    check_not_root,
    check_unique,
    depth_allows,
    effective_folder_access,
    failed,
    folder_parent,
    raise_if_any_failed,
    resolve_access_setting,
    succeeded,
)
from redline.identity.directory.storage import organization_exists
from redline.identity.fields import AccessType
from redline.identity.schema import SCHEMA
from redline.pg import Connection, Pool, write_events
from redline.proto.events import AccessChanged, Event, FolderAdded, FolderDeleted, FolderUpdated

# Folders one get may return; a larger tree is asked for a part at a time (folderId, maxDepth).
MAX_TREE = 10_000

_MISSING = "Folder does not exist."
_MISSING_PARENT = "Parent folder does not exist."
_TOO_DEEP = f"Folders nest at most {MAX_FOLDER_DEPTH} deep."
_CYCLE = "A folder cannot be moved into itself or into one of its subfolders."


def _updated(caller: ApiKeyPrincipal, organization_id: str, row: FolderRow) -> FolderUpdated:
    return FolderUpdated(
        workspaceId=caller.workspace_id,
        apiKey=caller.api_key,
        organizationId=organization_id,
        folderId=row.folder_id,
        folderName=row.name,
        parentFolderId=row.parent_folder_id,
        accessType=row.effective_access_type,
        inheritFromParent=row.inherit_from_parent,
    )


class FolderService:
    def __init__(
        self,
        pool: Pool,
        pages: PageTokens,
        default_access_type: AccessType,
        forget_access: ForgetAccess = FORGET_NOTHING,
    ) -> None:
        self._pool = pool
        self._pages = pages
        self._forget_access = forget_access
        self.default_access_type: AccessType = default_access_type

    # add ---------------------------------------------------------------------------------------

    async def add(
        self, caller: ApiKeyPrincipal, request: models.AddFolders
    ) -> dict[str, ItemResult]:
        org_id = request.organizationId
        items = request.folders
        check_entries("folders", [f.folderId for f in items], "folderId", items)
        for index, item in enumerate(items):
            check_not_root(item.folderId, f"data.folders[{index}].folderId")
        results: dict[str, ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await ensure_organization(conn, caller, org_id, create=request.createOrganization)
            await lock_writable_organization(conn, caller, org_id)
            # In order: a parent may be a folder added earlier in the same request.
            for item in items:
                result, event = await self._add_one(conn, caller, org_id, item)
                results[item.folderId] = result
                if event is not None:
                    events.append(event)
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "folders")
        return results

    async def _add_one(
        self, conn: Connection, caller: ApiKeyPrincipal, org_id: str, item: models.NewFolder
    ) -> tuple[ItemResult, FolderAdded | None]:
        folder_id = item.folderId
        parent_id = folder_parent(item.parentFolderId)
        parent = None
        if parent_id is not None:
            parent = await storage.get_folder(conn, caller.api_key, org_id, parent_id)
            if parent is None:
                return failed(folder_id, _MISSING_PARENT, NOT_FOUND), None
        ancestors = [] if parent is None else [*parent.ancestors, parent.folder_id]
        if not depth_allows(len(ancestors), 0):
            return failed(folder_id, _TOO_DEEP, INVALID), None
        parent_effective = (
            None if parent is None else cast(AccessType, parent.effective_access_type)
        )
        current = parent_effective or self.default_access_type
        setting = (
            resolve_access_setting(item.accessType, item.inheritFromParent, current) or INHERIT
        )
        effective = effective_folder_access(setting, parent_effective, self.default_access_type)
        new = storage.NewFolderRow(
            folder_id=folder_id,
            name=item.folderName,
            parent_folder_id=parent_id,
            ancestors=ancestors,
            access_type=setting.access_type,
            inherit_from_parent=setting.inherit,
            effective_access_type=effective,
            metadata=item.metadata or {},
        )
        if await storage.insert_folder(conn, caller.api_key, org_id, new) is None:
            return failed(folder_id, "Folder already exists.", ALREADY_EXISTS), None
        event = FolderAdded(
            workspaceId=caller.workspace_id,
            apiKey=caller.api_key,
            organizationId=org_id,
            folderId=folder_id,
            folderName=item.folderName,
            parentFolderId=parent_id,
            accessType=effective,
            inheritFromParent=setting.inherit,
        )
        return succeeded(folder_id, "Folder added."), event

    # update: rename, move ----------------------------------------------------------------------

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateFolders
    ) -> dict[str, ItemResult]:
        org_id = request.organizationId
        items = request.folders
        check_entries("folders", [f.folderId for f in items], "folderId", items)
        results: dict[str, ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_writable_organization(conn, caller, org_id)
            moved = False
            for item in items:
                result, event, item_moved = await self._update_one(conn, caller, org_id, item)
                results[item.folderId] = result
                if event is not None:
                    events.append(event)
                moved = moved or item_moved
            if moved:
                # A move changes the folder chain of every document below: grants on the old
                # ancestors stop counting, and inherited access types change.
                events.append(access_changed_event(caller, org_id))
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "folders")
        return results

    async def _update_one(
        self, conn: Connection, caller: ApiKeyPrincipal, org_id: str, item: models.FolderChange
    ) -> tuple[ItemResult, FolderUpdated | None, bool]:
        folder_id = item.folderId
        row = await storage.get_folder(conn, caller.api_key, org_id, folder_id)
        if row is None:
            return failed(folder_id, _MISSING, NOT_FOUND), None, False
        # Everything is checked before anything is written: a refused item changes nothing.
        move_to: tuple[str | None, list[str]] | None = None
        if item.parentFolderId is not None:
            parent_id = folder_parent(item.parentFolderId)
            if parent_id != row.parent_folder_id:
                ancestors: list[str] = []
                if parent_id is not None:
                    if parent_id == folder_id:
                        return failed(folder_id, _CYCLE, INVALID), None, False
                    parent = await storage.get_folder(conn, caller.api_key, org_id, parent_id)
                    if parent is None:
                        return failed(folder_id, _MISSING_PARENT, NOT_FOUND), None, False
                    if folder_id in parent.ancestors:
                        return failed(folder_id, _CYCLE, INVALID), None, False
                    ancestors = [*parent.ancestors, parent.folder_id]
                height = await storage.subtree_height(
                    conn, caller.api_key, org_id, folder_id, len(row.ancestors)
                )
                if not depth_allows(len(ancestors), height):
                    return failed(folder_id, _TOO_DEEP, INVALID), None, False
                move_to = (parent_id, ancestors)
        updated = await storage.update_folder(
            conn, caller.api_key, org_id, folder_id, item.folderName, item.metadata
        )
        if move_to is not None:
            await storage.move_folder(
                conn, caller.api_key, org_id, folder_id, *move_to, len(row.ancestors)
            )
            await storage.recompute_effective_access(
                conn, caller.api_key, org_id, folder_id, self.default_access_type
            )
            updated = await storage.get_folder(conn, caller.api_key, org_id, folder_id)
        assert updated is not None  # under the organization's lock
        return (
            succeeded(folder_id, "Folder updated."),
            _updated(caller, org_id, updated),
            move_to is not None,
        )

    # get ---------------------------------------------------------------------------------------

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetFolders
    ) -> Reply[list[models.Folder]]:
        org_id = request.organizationId
        after = reading.listing_start(self._pages, caller, request)
        max_depth = 0 if request.rootFoldersOnly else request.maxDepth
        top_id = folder_parent(request.folderId)
        async with self._pool.acquire() as conn, conn.transaction(readonly=True):
            if not await organization_exists(conn, caller.api_key, org_id):
                raise errors.organization_not_found()
            top = None
            if top_id is not None:
                top = await storage.get_folder(conn, caller.api_key, org_id, top_id)
                if top is None:
                    raise errors.folder_not_found()
            rows = await storage.folder_tree(
                conn, caller.api_key, org_id, top, max_depth, MAX_TREE + 1
            )
        if len(rows) > MAX_TREE:
            raise OutOfRange(
                f"More than {MAX_TREE} folders match; ask for a part of the tree with folderId"
                " and maxDepth."
            )
        tops = build_tree(reading.folder(r, caller.api_key, org_id) for r in rows)
        return reading.page_of_roots(self._pages, caller, request, tops, after)

    # delete ------------------------------------------------------------------------------------

    async def delete(self, caller: ApiKeyPrincipal, request: models.DeleteFolder) -> None:
        org_id = request.organizationId
        check_not_root(request.folderId, "data.folderId")
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_organization_or_fail(conn, caller, org_id)
            folder_ids, document_ids = await storage.delete_folder_tree(
                conn, caller.api_key, org_id, request.folderId
            )
            if not folder_ids:
                raise errors.folder_not_found()
            deleted = FolderDeleted(
                workspaceId=caller.workspace_id,
                apiKey=caller.api_key,
                organizationId=org_id,
                folderId=request.folderId,
                folderIds=folder_ids,
                documentIds=document_ids,
            )
            await write_events(conn, SCHEMA, [deleted, access_changed_event(caller, org_id)])
        self._forget_access(caller.api_key)

    # access ------------------------------------------------------------------------------------

    async def update_access(
        self, caller: ApiKeyPrincipal, request: models.UpdateFolderAccess
    ) -> dict[str, AccessResult]:
        if request.accessType is None and request.inheritFromParent is None:
            raise InvalidArgument.field(
                "data.accessType", "Give accessType, inheritFromParent, or both.", "missing_field"
            )
        org_id = request.organizationId
        check_unique(request.folderIds, "data.folderIds[{}]")
        results: dict[str, AccessResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_writable_organization(conn, caller, org_id)
            for folder_id in request.folderIds:
                result, updated = await self._set_access(conn, caller, folder_id, request)
                results[folder_id] = result
                if updated is not None:
                    events.append(updated)
            if events:
                events.append(access_changed_event(caller, org_id))
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "folders")
        return results

    async def _set_access(
        self,
        conn: Connection,
        caller: ApiKeyPrincipal,
        folder_id: str,
        request: models.UpdateFolderAccess,
    ) -> tuple[AccessResult, FolderUpdated | None]:
        """Set one folder's access as asked: its result, and its event if it exists."""
        org_id = request.organizationId
        row = await storage.get_folder(conn, caller.api_key, org_id, folder_id)
        if row is None:
            missing = AccessResult(success=False, accessType=None, message=_MISSING, code=NOT_FOUND)
            return missing, None
        current = cast(AccessType, row.effective_access_type)
        setting = resolve_access_setting(request.accessType, request.inheritFromParent, current)
        assert setting is not None  # one of the two was given
        await storage.set_folder_access(
            conn, caller.api_key, org_id, folder_id, setting.access_type, setting.inherit
        )
        # Folders below that inherit follow, each from its own parent.
        await storage.recompute_effective_access(
            conn, caller.api_key, org_id, folder_id, self.default_access_type
        )
        updated = await storage.get_folder(conn, caller.api_key, org_id, folder_id)
        assert updated is not None
        if setting.inherit:
            result = AccessResult(
                success=True,
                accessType=None,
                message="Folder access is inherited from its parent.",
                inheritFromParent=True,
            )
        else:
            result = AccessResult(
                success=True, accessType=setting.access_type, message="Folder access type updated."
            )
        return result, _updated(caller, org_id, updated)

    # start-up ----------------------------------------------------------------------------------

    async def apply_default_access(self) -> int:
        """After the default access type setting changed: give the folders whose access comes
        from it the new value. Cheap when nothing is stale (an indexed check). Returns how many
        organizations changed."""
        others = [t for t in ACCESS_TYPES if t != self.default_access_type]
        if not await storage.default_access_is_stale(self._pool, others):
            return 0
        async with self._pool.acquire() as conn, conn.transaction():
            changed = await storage.apply_default_access(conn, self.default_access_type)
            events = [
                AccessChanged(workspaceId=ws, apiKey=api_key, organizationId=org_id)
                for ws, api_key, org_id in changed
            ]
            await write_events(conn, SCHEMA, events)
        return len(changed)
