"""Requests and answers of /v2/users/invite/* and /v2/users/invitations/get, as the hosted
product's official Python SDK (velt-py) sends them."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from redline.identity.fields import ContactEmail, Email, Id, Name, PageToken, Request
from redline.identity.users.models import User

InviteType = Literal["org_user", "doc_user", "folder_user"]
Status = Literal["PENDING", "ACCEPTED", "REJECTED", "WITHDRAWN"]
# PENDING is where an invitation starts, not an answer to it.
Answer = Literal["ACCEPTED", "REJECTED", "WITHDRAWN"]
InvitePageSize = Annotated[int, Meta(ge=1, le=1000)]
AuthToken = Annotated[str, Meta(min_length=1, max_length=8192)]


class InvitedBy(Request):
    email: ContactEmail | None = None
    userId: Id | None = None
    userSnippylyId: Id | None = None
    clientUserId: Id | None = None
    name: Name | None = None


class InvitedUser(User, forbid_unknown_fields=False):
    """The invitee as a caller's user object: the profile fields users/add takes are kept, the
    other fields of the hosted product's user object are accepted and left aside."""


class AddInvite(Request):
    __openapi_exclusive__ = (("documentId", "folderId"),)

    email: Email
    organizationId: Id
    type: InviteType
    organizationName: Name | None = None
    documentId: Id | None = None
    documentName: Name | None = None
    folderId: Id | None = None
    folderName: Name | None = None
    invitedBy: InvitedBy | None = None


class RespondInvite(Request):
    __openapi_exclusive__ = (("documentId", "folderId"),)

    email: Email
    organizationId: Id
    status: Answer
    type: InviteType
    documentId: Id | None = None
    folderId: Id | None = None
    # Both required to accept: the invitee, and a user token of theirs from generate_token.
    user: InvitedUser | None = None
    authToken: AuthToken | None = None


class GetInvitedUsers(Request):
    organizationId: Id
    email: Email | None = None
    pageSize: InvitePageSize = 100
    pageToken: PageToken | None = None
    isPendingUsersOnly: bool = False


class GetUserInvitations(Request):
    organizationId: Id
    email: Email
    pageSize: InvitePageSize = 100
    pageToken: PageToken | None = None
    status: Status | None = None
    type: InviteType | None = None


class PendingCountRequest(Request):
    organizationId: Id
    type: InviteType


class Invitation(msgspec.Struct, omit_defaults=True):
    """An invitation as every invitation endpoint answers it. Times are epoch ms; `expiresAt` is
    when the mailed link stops working; `userId` is who accepted."""

    invitationId: str
    email: str
    organizationId: str
    type: str
    status: str
    createdAt: int
    updatedAt: int
    expiresAt: int
    organizationName: str | None = None
    documentId: str | None = None
    documentName: str | None = None
    folderId: str | None = None
    folderName: str | None = None
    invitedBy: dict[str, str] | None = None
    userId: str | None = None
    respondedAt: int | None = None


class PendingCount(msgspec.Struct):
    count: int
