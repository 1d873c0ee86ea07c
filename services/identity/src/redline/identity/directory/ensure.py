"""Making sure what a change attaches to exists, inside the caller's transaction: the
organization held or locked for it, and an organization, folder or document created on demand
(`createOrganization`, `createFolder`, `createDocument`, and whatever users, permissions and the
other services' `rpc.identity.documents.ensure` name)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import msgspec

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity import errors
from redline.identity.caller import caller_named
from redline.identity.directory.disable_state.service import require_writable
from redline.identity.directory.documents import storage as documents_storage
from redline.identity.directory.folders import storage as folders_storage
from redline.identity.directory.organizations import storage as organizations_storage
from redline.identity.directory.rules import MAX_FOLDER_DEPTH, ROOT, depth_allows
from redline.identity.directory.storage import hold_organization, lock_organization
from redline.identity.fields import AccessType
from redline.identity.schema import SCHEMA
from redline.pg import Connection, Pool, write_events
from redline.proto.events import DocumentAdded, FolderAdded, OrganizationAdded
from redline.proto.rpc import EnsuredDocument, EnsureDocument


async def lock_organization_or_fail(
    conn: Connection, caller: ApiKeyPrincipal, organization_id: str
) -> None:
    """Hold the organization row for this transaction; NOT_FOUND when it does not exist."""
    if not await lock_organization(conn, caller.api_key, organization_id):
        raise errors.organization_not_found()


async def lock_writable_organization(
    conn: Connection,
    caller: ApiKeyPrincipal,
    organization_id: str,
    document_ids: Sequence[str] = (),
) -> None:
    """Hold the organization row for a write in it; NOT_FOUND when it does not exist,
    FAILED_PRECONDITION when it, or one of `document_ids` in it, is disabled."""
    await lock_organization_or_fail(conn, caller, organization_id)
    await require_writable(conn, caller.api_key, organization_id, document_ids)


async def ensure_organization(
    conn: Connection,
    caller: ApiKeyPrincipal,
    organization_id: str,
    *,
    create: bool,
    name: str = "",
) -> bool:
    """Make sure the organization exists until the caller's transaction ends (it cannot be
    deleted meanwhile); True when this call created it (with `name`). Raises NOT_FOUND when it
    is missing and `create` is false. Idempotent, and safe when two transactions create it at
    once."""
    if await hold_organization(conn, caller.api_key, organization_id):
        return False
    if not create:
        raise errors.organization_not_found()
    created = await organizations_storage.insert_organization(
        conn, caller.api_key, organization_id, name, {}
    )
    if created:
        event = OrganizationAdded(
            workspaceId=caller.workspace_id,
            apiKey=caller.api_key,
            organizationId=organization_id,
            organizationName=name,
        )
        await write_events(conn, SCHEMA, [event])
        return True
    # Another transaction created it first (the insert waited for it to commit).
    if not await hold_organization(conn, caller.api_key, organization_id):
        raise errors.organization_not_found()
    return False


class Placement(msgspec.Struct, frozen=True):
    """The folder a folder or document created on demand goes into (without one: the
    organization's root). When missing, it is created at the root with `create_folder`, and is
    NOT_FOUND without it; created, it inherits, so `default_access_type` applies to it. A
    resource that exists already is never moved."""

    folder_id: str
    create_folder: bool
    default_access_type: AccessType


async def ensure_folder(
    conn: Connection,
    caller: ApiKeyPrincipal,
    organization_id: str,
    folder_id: str,
    *,
    create: bool,
    default_access_type: AccessType,
    placement: Placement | None = None,
) -> bool:
    """Make sure the folder exists; a created one goes where `placement` says and inherits. The
    organization must exist (see `ensure_organization`). True when this call created it;
    NOT_FOUND when it is missing and `create` is false."""
    if folder_id == ROOT:
        raise InvalidArgument(f"{ROOT!r} names the organization's root, not a folder.")
    if await folders_storage.get_folder(conn, caller.api_key, organization_id, folder_id):
        return False
    if not create:
        raise errors.folder_not_found()
    if not await hold_organization(conn, caller.api_key, organization_id):
        raise errors.organization_not_found()
    if placement is not None and placement.folder_id == folder_id:
        raise InvalidArgument("A folder cannot be its own parent.")
    parent = await _placement_folder(conn, caller, organization_id, placement)
    row = _implicit_folder(folder_id, parent, default_access_type)
    if await folders_storage.insert_folder(conn, caller.api_key, organization_id, row) is None:
        return False
    event = FolderAdded(
        workspaceId=caller.workspace_id,
        apiKey=caller.api_key,
        organizationId=organization_id,
        folderId=folder_id,
        folderName="",
        parentFolderId=row.parent_folder_id,
        accessType=row.effective_access_type,
        inheritFromParent=True,
    )
    await write_events(conn, SCHEMA, [event])
    return True


def _implicit_folder(
    folder_id: str, parent: folders_storage.FolderRow | None, default_access_type: AccessType
) -> folders_storage.NewFolderRow:
    """A folder made because something was put in it: nameless, inheriting, under `parent`
    (None: the root), as deep as folders may nest."""
    ancestors = [] if parent is None else [*parent.ancestors, parent.folder_id]
    if not depth_allows(len(ancestors), 0):
        raise InvalidArgument(f"Folders nest at most {MAX_FOLDER_DEPTH} deep.")
    effective = cast(
        "AccessType",
        default_access_type if parent is None else parent.effective_access_type,
    )
    return folders_storage.NewFolderRow(
        folder_id=folder_id,
        name="",
        parent_folder_id=None if parent is None else parent.folder_id,
        ancestors=ancestors,
        access_type=None,
        inherit_from_parent=True,
        effective_access_type=effective,
        metadata={},
    )


async def _placement_folder(
    conn: Connection,
    caller: ApiKeyPrincipal,
    organization_id: str,
    placement: Placement | None,
) -> folders_storage.FolderRow | None:
    """The folder a new resource goes into (None: the root), created at the root when missing
    and the placement allows it. The organization is locked first: the folder cannot be deleted
    before the new resource is in it."""
    if placement is None:
        return None
    await lock_organization_or_fail(conn, caller, organization_id)
    await ensure_folder(
        conn,
        caller,
        organization_id,
        placement.folder_id,
        create=placement.create_folder,
        default_access_type=placement.default_access_type,
    )
    folder = await folders_storage.get_folder(
        conn, caller.api_key, organization_id, placement.folder_id
    )
    if folder is None:  # found or created just above, under the lock
        raise errors.folder_not_found()
    return folder


async def ensure_document(
    conn: Connection,
    caller: ApiKeyPrincipal,
    organization_id: str,
    document_id: str,
    *,
    create: bool,
    placement: Placement | None = None,
    name: str = "",
) -> bool:
    """Make sure the document exists; a created one (named `name`) goes where `placement` says
    and has no access type of its own. At the root the default applies, so no cached access decision
    changes; in a folder the folder's applies, and the caller reports the access change. The
    organization must exist. True when this call created it; NOT_FOUND when it is missing and
    `create` is false."""
    if not await hold_organization(conn, caller.api_key, organization_id):
        raise errors.organization_not_found()
    if await documents_storage.document_exists(conn, caller.api_key, organization_id, document_id):
        return False
    if not create:
        raise errors.document_not_found()
    folder = await _placement_folder(conn, caller, organization_id, placement)
    folder_id = None if folder is None else folder.folder_id
    outcome = await documents_storage.insert_document(
        conn, caller.api_key, organization_id, document_id, name, folder_id, None, {}
    )
    if outcome == "held":
        raise errors.document_id_held(document_id)
    created = outcome == "inserted"
    if created:
        event = DocumentAdded(
            workspaceId=caller.workspace_id,
            apiKey=caller.api_key,
            organizationId=organization_id,
            documentId=document_id,
            documentName=name,
            folderId=folder_id,
            accessType=None,
        )
        await write_events(conn, SCHEMA, [event])
    return created


async def ensure_for_service(pool: Pool, request: EnsureDocument) -> EnsuredDocument:
    """`rpc.identity.documents.ensure`: another service makes sure the organization and the
    document exist (creating and naming them when the request says so) before it attaches data
    to them. Nearly every call finds both already there (comments are added to known
    documents): that is answered from one read, without the locking transaction, whose commit
    would cost a disk flush per call."""
    if await documents_storage.document_exists(
        pool, request.apiKey, request.organizationId, request.documentId
    ):
        return EnsuredDocument(
            organizationId=request.organizationId,
            documentId=request.documentId,
            organizationCreated=False,
            documentCreated=False,
        )
    async with pool.acquire() as conn, conn.transaction():
        # The asking service acts for the API key the request names.
        caller = await caller_named(conn, request.apiKey)
        organization_created = await ensure_organization(
            conn,
            caller,
            request.organizationId,
            create=request.createOrganization,
            name=request.organizationName,
        )
        document_created = await ensure_document(
            conn,
            caller,
            request.organizationId,
            request.documentId,
            create=request.createDocument,
            name=request.documentName,
        )
    return EnsuredDocument(
        organizationId=request.organizationId,
        documentId=request.documentId,
        organizationCreated=organization_created,
        documentCreated=document_created,
    )
