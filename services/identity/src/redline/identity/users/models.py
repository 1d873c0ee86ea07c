"""Users of an API key and their membership in organizations, folders and documents: request and
response Structs of /v2/users/*."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from redline.identity.fields import (
    ContactEmail,
    Id,
    Name,
    PageToken,
    Request,
    Role,
    Url,
)

Initial = Annotated[str, Meta(max_length=8)]
# users/get and users/doc/get page up to 1000 users, 1000 by default, as the hosted product does.
UsersPageSize = Annotated[int, Meta(ge=1, le=1000)]
Color = Annotated[str, Meta(max_length=64)]
MAX_USERS = 100
MAX_USER_IDS_GET = 30


class User(Request):
    userId: Id
    name: Name | None = None
    email: ContactEmail | None = None
    initial: Initial | None = None
    accessRole: Role | None = None
    photoUrl: Url | None = None
    color: Color | None = None
    textColor: Color | None = None


class AddUsers(Request):
    __openapi_exclusive__ = (("documentId", "folderId"),)

    users: Annotated[list[User], Meta(min_length=1, max_length=MAX_USERS)]
    organizationId: Id
    createOrganization: bool = False
    documentId: Id | None = None
    createDocument: bool = False
    folderId: Id | None = None
    createFolder: bool = False
    # The official SDK's placement of the folder or document this call creates ("root": the
    # organization's root); an existing one stays where it is.
    parentFolderId: Id | None = None
    # The official SDK's pass-through for the hosted product's user resolver and webhook payloads;
    # adding users sends neither here, so it is checked and unused.
    context: Annotated[dict[str, Any], Meta(max_length=64)] | None = None


class UpdateOptions(Request):
    """The official SDK's bulk update: `all`, every level the user is a member at (in
    `organizationId`, or in every organization of the API key without it); `allDocuments`, every
    document of the organization the user holds a grant on."""

    all: bool = False
    allDocuments: bool = False


class UpdateUsers(Request):
    __openapi_any_of__ = (("organizationId",), ("options",))
    __openapi_exclusive__ = (("documentId", "folderId"),)
    __openapi_rule__ = "organizationId is due unless options.all is true."

    users: Annotated[list[User], Meta(min_length=1, max_length=MAX_USERS)]
    # Required but with `options.all`.
    organizationId: Id | None = None
    documentId: Id | None = None
    folderId: Id | None = None
    options: UpdateOptions | None = None


class DeleteUsers(Request):
    __openapi_exclusive__ = (("documentId", "folderId"),)

    userIds: Annotated[list[Id], Meta(min_length=1, max_length=MAX_USERS)]
    organizationId: Id
    documentId: Id | None = None
    folderId: Id | None = None
    # As on users/add: checked and unused.
    context: Annotated[dict[str, Any], Meta(max_length=64)] | None = None


class GetUsers(Request):
    __openapi_exclusive__ = (("documentId", "folderId"),)

    organizationId: Id
    documentId: Id | None = None
    folderId: Id | None = None
    userIds: Annotated[list[Id], Meta(max_length=MAX_USER_IDS_GET)] | None = None
    # Only members of any of these organization user groups.
    organizationUserGroupIds: Annotated[list[Id], Meta(max_length=MAX_USER_IDS_GET)] | None = None
    pageSize: UsersPageSize = 1000
    pageToken: PageToken | None = None
    # The official SDK's search: only users whose name or email holds this text (any case).
    searchKey: Annotated[str, Meta(min_length=1, max_length=256)] | None = None
    # Each user's document grants in the organization, or only how many there are.
    includeInvolvedDocuments: bool = False
    includeInvolvedDocumentsCount: bool = False
    # Users with a grant on any document of the organization instead of the members at one level,
    # and, with `groupByDocumentId`, the answer keyed by document id.
    allDocuments: bool = False
    groupByDocumentId: bool = False


class UserResult(msgspec.Struct):
    """One user's outcome in a keyed result map."""

    success: bool
    id: str
    message: str


class UserOut(msgspec.Struct, omit_defaults=True):
    """A user as users/get returns it, with the role at the level asked about (none with
    `allDocuments` alone: a user's roles differ per document)."""

    userId: str
    name: str
    email: str
    initial: str
    accessRole: str | None = None
    photoUrl: str | None = None
    color: str | None = None
    textColor: str | None = None
    # With `includeInvolvedDocuments` / `includeInvolvedDocumentsCount`.
    involvedDocuments: list[InvolvedDocument] | None = None
    involvedDocumentsCount: int | None = None


UserList = list[UserOut]
# users/get with `allDocuments` and `groupByDocumentId`: each document's users, by document id.
GroupedUsers = dict[str, list[UserOut]]

MAX_DOC_USER_IDS = 20
# With `includeInvolvedDocuments`, as the hosted product limits it.
MAX_DOC_USER_IDS_INVOLVED = 5


class CountUsers(Request):
    __openapi_exclusive__ = (("documentId", "allDocuments"),)

    organizationId: Id
    documentId: Id | None = None
    userId: Id | None = None
    allDocuments: bool = False


class UserCount(msgspec.Struct):
    count: int


class GetDocUsers(Request):
    organizationId: Id
    userIds: Annotated[list[Id], Meta(min_length=1, max_length=MAX_DOC_USER_IDS)] | None = None
    includeInvolvedDocuments: bool = False
    pageSize: UsersPageSize = 1000
    pageToken: PageToken | None = None


class InvolvedDocument(msgspec.Struct):
    documentId: str
    accessRole: str


class DocUser(msgspec.Struct, omit_defaults=True):
    """A user with access at document level somewhere in the organization."""

    userId: str
    name: str
    email: str
    initial: str
    photoUrl: str | None = None
    color: str | None = None
    textColor: str | None = None
    # With `includeInvolvedDocuments`: the documents the user holds a grant on, by id.
    involvedDocuments: list[InvolvedDocument] | None = None
