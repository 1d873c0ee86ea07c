"""Documents of an organization: add, update, get, delete, move, access; and the
`rpc.identity.documents.ensure` answer. Every change commits with its events."""

from __future__ import annotations

from typing import cast

import msgspec

from redline.envelope import PageTokens
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument, NotFound
from redline.identity.models import directory as models
from redline.identity.models.directory import AccessType
from redline.identity.service.directory import (
    ALREADY_EXISTS,
    FORGET_NOTHING,
    NOT_FOUND,
    ROOT,
    ForgetAccess,
    access_changed_event,
    check_entries,
    check_unique,
    effective_document_access,
    ensure_document,
    ensure_folder,
    ensure_organization,
    failed,
    folder_not_found,
    folder_parent,
    forget_if_access_changed,
    lock_organization_or_fail,
    ms,
    organization_not_found,
    raise_if_any_failed,
    succeeded,
)
from redline.identity.storage import documents as storage
from redline.identity.storage import folders as folder_storage
from redline.identity.storage.directory import (
    SCHEMA,
    DocumentRow,
    organization_exists,
    workspace_of_api_key,
)
from redline.pg import Pool, write_events
from redline.proto.events import (
    DocumentAdded,
    DocumentDeleted,
    DocumentUpdated,
    Event,
)
from redline.proto.rpc import EnsuredDocument, EnsureDocument

_PAGE_KIND = "documents"
_MISSING = "Document does not exist."


class _Cursor(msgspec.Struct, array_like=True):
    # The listing a token continues: a token of another listing is refused, not misapplied.
    api_key: str
    organization_id: str
    folder_id: str | None
    after: str


def _updated(
    key: ApiKeyPrincipal, organization_id: str, state: storage.DocumentState
) -> DocumentUpdated:
    return DocumentUpdated(
        workspaceId=key.workspace_id,
        apiKey=key.api_key,
        organizationId=organization_id,
        documentId=state.document_id,
        documentName=state.name,
        folderId=state.folder_id,
        accessType=state.access_type,
    )


def _found_or_missing(ids: list[str], done: set[str], message: str) -> dict[str, models.ItemResult]:
    """Per requested id: `message` where the change applied, not-found where it did not."""
    return {
        doc_id: succeeded(doc_id, message)
        if doc_id in done
        else failed(doc_id, _MISSING, NOT_FOUND)
        for doc_id in ids
    }


class DocumentService:
    def __init__(
        self,
        pool: Pool,
        page_tokens: PageTokens,
        default_access_type: AccessType,
        forget_access: ForgetAccess = FORGET_NOTHING,
    ) -> None:
        self._pool = pool
        self._forget = forget_access
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
            metadata=row.metadata,
            createdAt=ms(row.created_at),
            lastUpdated=ms(row.updated_at),
        )

    # add, update -------------------------------------------------------------------------------

    async def add(
        self, key: ApiKeyPrincipal, request: models.AddDocuments
    ) -> dict[str, models.ItemResult]:
        org_id = request.organizationId
        items = request.documents
        check_entries("documents", [d.documentId for d in items], "documentId", items)
        folder_id = folder_parent(request.folderId)
        results: dict[str, models.ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await ensure_organization(conn, key, org_id, create=request.createOrganization)
            # Under the lock, the folder cannot be deleted before these documents are in it.
            await lock_organization_or_fail(conn, key, org_id)
            if folder_id is not None:
                await ensure_folder(
                    conn,
                    key,
                    org_id,
                    folder_id,
                    create=request.createFolder,
                    default_access_type=self.default_access_type,
                )
            access_changed = False
            for item in items:
                doc_id = item.documentId
                if not await storage.insert_document(
                    conn,
                    key.api_key,
                    org_id,
                    doc_id,
                    item.documentName,
                    folder_id,
                    item.accessType,
                    item.metadata or {},
                ):
                    results[doc_id] = failed(doc_id, "Document already exists.", ALREADY_EXISTS)
                    continue
                results[doc_id] = succeeded(doc_id, "Added Successfully")
                events.append(
                    DocumentAdded(
                        workspaceId=key.workspace_id,
                        apiKey=key.api_key,
                        organizationId=org_id,
                        documentId=doc_id,
                        documentName=item.documentName,
                        folderId=folder_id,
                        accessType=item.accessType,
                    )
                )
                # A decision cached for the id before the document existed assumed the default
                # access type and no folder.
                access_changed = access_changed or bool(item.accessType or folder_id)
            if access_changed:
                events.append(access_changed_event(key, org_id))
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget, key.api_key, events)
        raise_if_any_failed(results, "documents")
        return results

    async def update(
        self, key: ApiKeyPrincipal, request: models.UpdateDocuments
    ) -> dict[str, models.ItemResult]:
        org_id = request.organizationId
        items = request.documents
        check_entries("documents", [d.documentId for d in items], "documentId", items)
        results: dict[str, models.ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            if not await organization_exists(conn, key.api_key, org_id):
                raise organization_not_found()
            for item in items:
                doc_id = item.documentId
                state = await storage.update_document(
                    conn, key.api_key, org_id, doc_id, item.documentName, item.metadata
                )
                if state is None:
                    results[doc_id] = failed(doc_id, _MISSING, NOT_FOUND)
                    continue
                results[doc_id] = succeeded(doc_id, "Updated Successfully")
                events.append(_updated(key, org_id, state))
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget, key.api_key, events)
        raise_if_any_failed(results, "documents")
        return results

    # get ---------------------------------------------------------------------------------------

    async def get(
        self, key: ApiKeyPrincipal, request: models.GetDocuments
    ) -> tuple[list[models.Document], str | None]:
        org_id = request.organizationId
        after = None
        if request.pageToken:
            cursor = self._pages.decode(key.workspace_id, _PAGE_KIND, request.pageToken, _Cursor)
            if (cursor.api_key, cursor.organization_id, cursor.folder_id) != (
                key.api_key,
                org_id,
                request.folderId,
            ):
                raise InvalidArgument.field("data.pageToken", "Invalid page token.")
            after = cursor.after
        folder = None
        async with self._pool.acquire() as conn, conn.transaction(readonly=True):
            if not await organization_exists(conn, key.api_key, org_id):
                raise organization_not_found()
            if request.folderId is not None:
                folder_id = folder_parent(request.folderId)
                if folder_id is not None and not await folder_storage.get_folder(
                    conn, key.api_key, org_id, folder_id
                ):
                    raise folder_not_found()
                folder = storage.FolderFilter(folder_id)
            ids = None if request.documentIds is None else list(request.documentIds)
            rows = await storage.documents_page(
                conn, key.api_key, org_id, ids, folder, after, request.pageSize + 1
            )
        more = len(rows) > request.pageSize
        rows = rows[: request.pageSize]
        token = None
        if more:
            cursor = _Cursor(key.api_key, org_id, request.folderId, rows[-1].document_id)
            token = self._pages.encode(key.workspace_id, _PAGE_KIND, cursor)
        return [self.document(r, org_id) for r in rows], token

    # delete, move, access ----------------------------------------------------------------------

    async def delete(
        self, key: ApiKeyPrincipal, request: models.DocumentIds
    ) -> dict[str, models.ItemResult]:
        org_id = request.organizationId
        ids = request.documentIds
        check_unique(ids, "data.documentIds[{}]")
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_organization_or_fail(conn, key, org_id)
            deleted = set(await storage.delete_documents(conn, key.api_key, org_id, ids))
            for doc_id in ids:
                if doc_id in deleted:
                    events.append(
                        DocumentDeleted(
                            workspaceId=key.workspace_id,
                            apiKey=key.api_key,
                            organizationId=org_id,
                            documentId=doc_id,
                        )
                    )
            if deleted:
                # Users' grants on them went too.
                events.append(access_changed_event(key, org_id))
            await write_events(conn, SCHEMA, events)
        results = _found_or_missing(ids, deleted, "Deleted Successfully")
        forget_if_access_changed(self._forget, key.api_key, events)
        raise_if_any_failed(results, "documents")
        return results

    async def move(
        self, key: ApiKeyPrincipal, request: models.MoveDocuments
    ) -> dict[str, models.ItemResult]:
        org_id = request.organizationId
        ids = request.documentIds
        check_unique(ids, "data.documentIds[{}]")
        target = folder_parent(request.folderId)
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_organization_or_fail(conn, key, org_id)
            if target is not None and not await folder_storage.get_folder(
                conn, key.api_key, org_id, target
            ):
                raise folder_not_found()
            states = await storage.move_documents(conn, key.api_key, org_id, ids, target)
            events += [_updated(key, org_id, state) for state in states]
            if states:
                events.append(access_changed_event(key, org_id))
            await write_events(conn, SCHEMA, events)
        moved = {state.document_id for state in states}
        results = _found_or_missing(ids, moved, "Moved Successfully")
        forget_if_access_changed(self._forget, key.api_key, events)
        raise_if_any_failed(results, "documents")
        return results

    async def update_access(
        self, key: ApiKeyPrincipal, request: models.UpdateDocumentAccess
    ) -> dict[str, models.AccessResult]:
        org_id = request.organizationId
        ids = request.documentIds
        check_unique(ids, "data.documentIds[{}]")
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_organization_or_fail(conn, key, org_id)
            states = await storage.set_document_access(
                conn, key.api_key, org_id, ids, request.accessType
            )
            events += [_updated(key, org_id, state) for state in states]
            if states:
                events.append(access_changed_event(key, org_id))
            await write_events(conn, SCHEMA, events)
        changed = {state.document_id for state in states}
        results = {
            doc_id: models.AccessResult(
                success=True, accessType=request.accessType, message="Document access type updated."
            )
            if doc_id in changed
            else models.AccessResult(
                success=False, accessType=None, message=_MISSING, code=NOT_FOUND
            )
            for doc_id in ids
        }
        forget_if_access_changed(self._forget, key.api_key, events)
        raise_if_any_failed(results, "documents")
        return results

    # rpc.identity.documents.ensure -------------------------------------------------------------

    async def ensure(self, request: EnsureDocument) -> EnsuredDocument:
        # Nearly every call finds both already there (comments are added to known documents):
        # answer that from one read, without the locking transaction, whose commit would cost a
        # disk flush per call.
        if await storage.document_exists(
            self._pool, request.apiKey, request.organizationId, request.documentId
        ):
            return EnsuredDocument(
                organizationId=request.organizationId,
                documentId=request.documentId,
                organizationCreated=False,
                documentCreated=False,
            )
        async with self._pool.acquire() as conn, conn.transaction():
            workspace_id = await workspace_of_api_key(conn, request.apiKey)
            if workspace_id is None:
                raise NotFound("API key not found.")
            key = ApiKeyPrincipal(workspace_id=workspace_id, api_key=request.apiKey)
            organization_created = await ensure_organization(
                conn, key, request.organizationId, create=request.createOrganization
            )
            document_created = await ensure_document(
                conn, key, request.organizationId, request.documentId, create=request.createDocument
            )
        return EnsuredDocument(
            organizationId=request.organizationId,
            documentId=request.documentId,
            organizationCreated=organization_created,
            documentCreated=document_created,
        )
