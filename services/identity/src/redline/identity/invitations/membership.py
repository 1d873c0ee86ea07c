"""What an invitation means for the directory: the place it names, the membership accepting it
makes, and how the endpoints show it."""

from __future__ import annotations

import msgspec

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity.access_changes import write_access_changed
from redline.identity.directory.ensure import ensure_document, ensure_folder, ensure_organization
from redline.identity.fields import AccessType
from redline.identity.invitations import models
from redline.identity.invitations.storage import InvitationRow
from redline.identity.users import storage as users_storage
from redline.identity.users.storage import Level, Profile
from redline.pg import Connection
from redline.proto.events import epoch_ms

_RESOURCE_TYPE = {"org_user": "organization", "doc_user": "document", "folder_user": "folder"}


class Invitee(msgspec.Struct, frozen=True):
    user_id: str
    # The profile the caller gave; None keeps the stored one (or makes one from the address).
    profile: Profile | None


def level_of_invite(
    invite_type: str, organization_id: str, document_id: str | None, folder_id: str | None
) -> Level:
    """Where the invitation's membership lives: `doc_user` needs documentId, `folder_user`
    folderId, and each names only its own kind of place."""
    wanted = {"doc_user": "documentId", "folder_user": "folderId"}.get(invite_type)
    for field, value in (("documentId", document_id), ("folderId", folder_id)):
        if field == wanted and value is None:
            raise InvalidArgument.field(
                f"data.{field}", f"type {invite_type} needs {field}.", code="missing_field"
            )
        if field != wanted and value is not None:
            raise InvalidArgument.field(
                f"data.{field}", f"type {invite_type} does not take {field}."
            )
    resource_id = document_id or folder_id or organization_id
    return Level(organization_id, _RESOURCE_TYPE[invite_type], resource_id)


async def add_member(
    conn: Connection,
    caller: ApiKeyPrincipal,
    row: InvitationRow,
    invitee: Invitee,
    default_access_type: AccessType,
) -> None:
    """Make the invitee a member where `row` says, creating the folder or document if it went
    missing; a role already held there stays."""
    organization_id = row.organization_id
    await ensure_organization(conn, caller, organization_id, create=True)
    level = Level(organization_id, _RESOURCE_TYPE[row.invite_type], row.resource_id)
    if level.resource_type == "folder":
        await ensure_folder(
            conn,
            caller,
            organization_id,
            row.resource_id,
            create=True,
            default_access_type=default_access_type,
        )
    elif level.resource_type == "document":
        await ensure_document(conn, caller, organization_id, row.resource_id, create=True)
    profile = invitee.profile or Profile(invitee.user_id, email=row.email)
    await users_storage.upsert_profiles(conn, caller.api_key, [profile])
    await users_storage.add_members(conn, caller.api_key, level, {invitee.user_id: None})
    await write_access_changed(conn, caller, [organization_id])


def out(row: InvitationRow) -> models.Invitation:
    document = row.invite_type == "doc_user"
    folder = row.invite_type == "folder_user"
    return models.Invitation(
        invitationId=row.id,
        email=row.email,
        organizationId=row.organization_id,
        type=row.invite_type,
        status=row.status,
        createdAt=epoch_ms(row.created_at),
        updatedAt=epoch_ms(row.updated_at),
        expiresAt=epoch_ms(row.token_expires_at),
        organizationName=row.organization_name or None,
        documentId=row.resource_id if document else None,
        documentName=(row.resource_name or None) if document else None,
        folderId=row.resource_id if folder else None,
        folderName=(row.resource_name or None) if folder else None,
        invitedBy=row.invited_by,
        userId=row.user_id,
        respondedAt=epoch_ms(row.responded_at) if row.responded_at else None,
    )
