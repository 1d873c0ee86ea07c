"""Documents of an organization: add, update, get, delete, move, access; and the
`rpc.identity.documents.ensure` answer. Every change commits with its events."""

from __future__ import annotations

from typing import cast

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity import errors
from redline.identity.access_changes import (
    FORGET_NOTHING,
    ForgetAccess,
    access_changed_event,
    forget_if_access_changed,
)
from redline.identity.directory.documents import models, storage
from redline.identity.directory.documents.counting import metadata_filters
from redline.identity.directory.documents.storage import DocumentRow
from redline.identity.directory.ensure import (
    ensure_folder,
    ensure_organization,
    lock_organization_or_fail,
    lock_writable_organization,
)
from redline.identity.directory.folders import storage as folders_storage
from redline.identity.directory.models import AccessResult, ItemResult
from redline.identity.directory.rules import (
    ALREADY_EXISTS,
    HELD,
    NOT_FOUND,
    ROOT,
    check_entries,
    check_unique,
    effective_document_access,
    failed,
    folder_parent,
    raise_if_any_failed,
    raise_if_any_missing,
    succeeded,
)
from redline.identity.directory.storage import organization_exists
from redline.identity.fields import AccessType
from redline.identity.schema import SCHEMA
from redline.pg import Connection, Pool, write_events
from redline.proto.events import (
    DocumentAdded,
    DocumentDeleted,
    DocumentUpdated,
    Event,
    epoch_ms,
)

_PAGE_KIND = "documents"
_MISSING = "Document does not exist."


class _Cursor(msgspec.Struct, array_like=True):
    # The listing a token continues: a token of another listing is refused, not misapplied.
    api_key: str
    organization_id: str
    folder_id: str | None
    after: str


def _updated(
    caller: ApiKeyPrincipal, organization_id: str, state: storage.DocumentState
) -> DocumentUpdated:
    return DocumentUpdated(
        workspaceId=caller.workspace_id,
        apiKey=caller.api_key,
        organizationId=organization_id,
        documentId=state.document_id,
        documentName=state.name,
        folderId=state.folder_id,
        accessType=state.access_type,
    )


def _found_or_missing(ids: list[str], done: set[str], message: str) -> dict[str, ItemResult]:
    """Per requested id: `message` where the change applied, not-found where it did not."""
    return {
        doc_id: succeeded(doc_id, message)
        if doc_id in done
        else failed(doc_id, _MISSING, NOT_FOUND)
        for doc_id in ids
    }


async def _add_one(
    conn: Connection,
    caller: ApiKeyPrincipal,
    org_id: str,
    folder_id: str | None,
    item: models.NewDocument,
) -> tuple[ItemResult, DocumentAdded | None]:
    """Insert one document of a documents/add: its result, and its event if it was added."""
    doc_id = item.documentId
    outcome = await storage.insert_document(
        conn,
        caller.api_key,
        org_id,
        doc_id,
        item.documentName,
        folder_id,
        item.accessType,
        item.metadata or {},
    )
    if outcome == "exists":
        return failed(doc_id, "Document already exists.", ALREADY_EXISTS), None
    if outcome == "held":
        return failed(doc_id, errors.document_id_held(doc_id).message, HELD), None
    added = DocumentAdded(
        workspaceId=caller.workspace_id,
        apiKey=caller.api_key,
        organizationId=org_id,
        documentId=doc_id,
        documentName=item.documentName,
        folderId=folder_id,
        accessType=item.accessType,
    )
    return succeeded(doc_id, "Added Successfully"), added


async def _folder_filter(
    conn: Connection, api_key: str, org_id: str, folder: str | None
) -> storage.FolderFilter | None:
    """The folder documents/get lists (root if "root"), None for every folder; a folder that
    does not exist is refused."""
    if folder is None:
        return None
    folder_id = folder_parent(folder)
    if folder_id is not None and not await folders_storage.get_folder(
        conn, api_key, org_id, folder_id
    ):
        raise errors.folder_not_found()
    return storage.FolderFilter(folder_id)


class DocumentService:
    def __init__(
        self,
        pool: Pool,
        page_tokens: PageTokens,
        default_access_type: AccessType,
        forget_access: ForgetAccess = FORGET_NOTHING,
    ) -> None:
        self._pool = pool
        self._forget_access = forget_access
        self._pages = page_tokens
        self.default_access_type: AccessType = default_access_type

    def document(self, row: DocumentRow, organization_id: str) -> models.Document:
        return models.Document(
            id=row.document_id,
            documentName=row.name,
            organizationId=organization_id,
            folderId=row.folder_id or ROOT,
            accessType=effective_document_access(
                cast("AccessType | None", row.access_type),
                cast("AccessType | None", row.folder_access_type),
                self.default_access_type,
            ),
            disabled=row.disabled,
            metadata=row.metadata,
            createdAt=epoch_ms(row.created_at),
            lastUpdated=epoch_ms(row.updated_at),
        )

    # add, update -------------------------------------------------------------------------------

    async def add(
        self, caller: ApiKeyPrincipal, request: models.AddDocuments
    ) -> dict[str, ItemResult]:
        org_id = request.organizationId
        items = request.documents
        check_entries("documents", [d.documentId for d in items], "documentId", items)
        folder_id = folder_parent(request.folderId)
        results: dict[str, ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await ensure_organization(conn, caller, org_id, create=request.createOrganization)
            # Under the lock, the folder cannot be deleted before these documents are in it.
            await lock_writable_organization(conn, caller, org_id)
            if folder_id is not None:
                await ensure_folder(
                    conn,
                    caller,
                    org_id,
                    folder_id,
                    create=request.createFolder,
                    default_access_type=self.default_access_type,
                )
            access_changed = False
            for item in items:
                result, added = await _add_one(conn, caller, org_id, folder_id, item)
                results[item.documentId] = result
                if added is None:
                    continue
                events.append(added)
                # A decision cached for the id before the document existed assumed the default
                # access type and no folder.
                access_changed = access_changed or bool(item.accessType or folder_id)
            if access_changed:
                events.append(access_changed_event(caller, org_id))
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "documents")
        return results

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateDocuments
    ) -> dict[str, ItemResult]:
        org_id = request.organizationId
        items = request.documents
        check_entries("documents", [d.documentId for d in items], "documentId", items)
        results: dict[str, ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_writable_organization(conn, caller, org_id, [d.documentId for d in items])
            for item in items:
                doc_id = item.documentId
                state = await storage.update_document(
                    conn,
                    caller.api_key,
                    org_id,
                    doc_id,
                    item.documentName,
                    item.metadata,
                    replace_metadata=request.merge is False,
                )
                if state is None:
                    results[doc_id] = failed(doc_id, _MISSING, NOT_FOUND)
                    continue
                results[doc_id] = succeeded(doc_id, "Updated Successfully")
                events.append(_updated(caller, org_id, state))
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "documents")
        return results

    # get ---------------------------------------------------------------------------------------

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetDocuments
    ) -> Reply[list[models.Document]]:
        org_id = request.organizationId
        after = self._after(caller, request)
        async with self._pool.acquire() as conn, conn.transaction(readonly=True):
            if not await organization_exists(conn, caller.api_key, org_id):
                raise errors.organization_not_found()
            folder = await _folder_filter(conn, caller.api_key, org_id, request.folderId)
            ids = None if request.documentIds is None else list(request.documentIds)
            rows = await storage.documents_page(
                conn,
                caller.api_key,
                org_id,
                ids,
                folder,
                after,
                request.pageSize + 1,
                metadata_filters(request.filters or []),
            )
            existing = (
                set()
                if ids is None
                else await storage.existing_document_ids(conn, caller.api_key, org_id, ids)
            )
        more = len(rows) > request.pageSize
        documents = [self.document(r, org_id) for r in rows[: request.pageSize]]
        if ids is not None:
            # The hosted product answers ids that name no document as a partial failure.
            listed = {d.id: {"success": True, **msgspec.to_builtins(d)} for d in documents}
            raise_if_any_missing(ids, listed, existing, "documents", _MISSING)
        token = None
        if more:
            cursor = _Cursor(caller.api_key, org_id, request.folderId, documents[-1].id)
            token = self._pages.encode(caller.workspace_id, _PAGE_KIND, cursor)
        # The hosted product names this endpoint's token `pageToken`; both names are sent.
        return paged(documents, token, also_as_page_token=True)

    def _after(self, caller: ApiKeyPrincipal, request: models.GetDocuments) -> str | None:
        """The last document of the page before, from the request's page token: a token of
        another key, organization or folder is refused."""
        if not request.pageToken:
            return None
        cursor = self._pages.decode(caller.workspace_id, _PAGE_KIND, request.pageToken, _Cursor)
        if (cursor.api_key, cursor.organization_id, cursor.folder_id) != (
            caller.api_key,
            request.organizationId,
            request.folderId,
        ):
            raise InvalidArgument.field("data.pageToken", "Invalid page token.")
        return cursor.after

    # delete, move, access ----------------------------------------------------------------------

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.DocumentIds
    ) -> dict[str, ItemResult]:
        org_id = request.organizationId
        ids = request.documentIds
        check_unique(ids, "data.documentIds[{}]")
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_organization_or_fail(conn, caller, org_id)
            deleted = set(await storage.delete_documents(conn, caller.api_key, org_id, ids))
            for doc_id in ids:
                if doc_id in deleted:
                    events.append(
                        DocumentDeleted(
                            workspaceId=caller.workspace_id,
                            apiKey=caller.api_key,
                            organizationId=org_id,
                            documentId=doc_id,
                        )
                    )
            if deleted:
                # Users' grants on them went too.
                events.append(access_changed_event(caller, org_id))
            await write_events(conn, SCHEMA, events)
        results = _found_or_missing(ids, deleted, "Deleted Successfully")
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "documents")
        return results

    async def move(
        self, caller: ApiKeyPrincipal, request: models.MoveDocuments
    ) -> dict[str, ItemResult]:
        org_id = request.organizationId
        ids = request.documentIds
        check_unique(ids, "data.documentIds[{}]")
        target = folder_parent(request.folderId)
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_writable_organization(conn, caller, org_id, ids)
            if target is not None and not await folders_storage.get_folder(
                conn, caller.api_key, org_id, target
            ):
                raise errors.folder_not_found()
            states = await storage.move_documents(conn, caller.api_key, org_id, ids, target)
            events += [_updated(caller, org_id, state) for state in states]
            if states:
                events.append(access_changed_event(caller, org_id))
            await write_events(conn, SCHEMA, events)
        moved = {state.document_id for state in states}
        results = _found_or_missing(ids, moved, "Moved Successfully")
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "documents")
        return results

    async def update_access(
        self, caller: ApiKeyPrincipal, request: models.UpdateDocumentAccess
    ) -> dict[str, AccessResult]:
        org_id = request.organizationId
        ids = request.documentIds
        check_unique(ids, "data.documentIds[{}]")
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_writable_organization(conn, caller, org_id, ids)
            states = await storage.set_document_access(
                conn, caller.api_key, org_id, ids, request.accessType
            )
            events += [_updated(caller, org_id, state) for state in states]
            if states:
                events.append(access_changed_event(caller, org_id))
            await write_events(conn, SCHEMA, events)
        changed = {state.document_id for state in states}
        results = {
            doc_id: AccessResult(
                success=True, accessType=request.accessType, message="Document access type updated."
            )
            if doc_id in changed
            else AccessResult(success=False, accessType=None, message=_MISSING, code=NOT_FOUND)
            for doc_id in ids
        }
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "documents")
        return results
