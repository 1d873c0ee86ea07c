"""Permissions and user tokens: request and response Structs of /v2/auth/*."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from redline.identity.fields import ContactEmail, Id, Name, Request, ResourceType, Role

# Epoch seconds; the bound (year 5138) catches milliseconds sent by mistake.
EpochSeconds = Annotated[int, Meta(ge=0, le=100_000_000_000)]
MAX_RESOURCES = 100
MAX_USER_IDS = 30
MAX_RESOURCE_IDS = 100


class Resource(Request):
    __openapi_rule__ = "organizationId is due unless type is organization (then it may repeat id)."

    type: ResourceType
    id: Id
    # Required for folders and documents; for an organization, `id` is the organization.
    organizationId: Id | None = None
    accessRole: Role | None = None
    expiresAt: EpochSeconds | None = None


class Resources(Request):
    resources: Annotated[list[Resource], Meta(min_length=1, max_length=MAX_RESOURCES)]


class UserRef(Request):
    userId: Id


class AddPermissions(Request):
    user: UserRef
    permissions: Resources


class RemovePermissions(Request):
    userId: Id
    permissions: Resources


class GetPermissions(Request):
    organizationId: Id
    userIds: Annotated[list[Id], Meta(min_length=1, max_length=MAX_USER_IDS)]
    folderIds: Annotated[list[Id], Meta(max_length=MAX_RESOURCE_IDS)] | None = None
    documentIds: Annotated[list[Id], Meta(max_length=MAX_RESOURCE_IDS)] | None = None
    # The official SDK's switch for answering without checking that the ids exist: an unknown
    # folder or document is then an entry saying `does_not_exist` instead of NOT_FOUND.
    skipResourceExistenceValidation: bool | None = None


ErrorCode = Literal["does_not_exist", "permission_denied"]


class Access(msgspec.Struct, omit_defaults=True):
    """A user's access to one resource, or why there is none (`error`, `errorCode`)."""

    accessRole: str | None = None
    accessType: str | None = None
    expiresAt: int | None = None  # seconds, when the deciding grant is temporary
    error: str | None = None
    errorCode: ErrorCode | None = None


class UserPermissions(msgspec.Struct, omit_defaults=True):
    organization: dict[str, Access] | None = None
    folders: dict[str, Access] | None = None
    documents: dict[str, Access] | None = None
    error: str | None = None
    errorCode: ErrorCode | None = None


class UserProperties(Request):
    name: Name | None = None
    email: ContactEmail | None = None
    isAdmin: bool | None = None
    # Carried in the token for clients that pin a user to one organization.
    organizationId: Id | None = None


class TokenResources(Request):
    resources: Annotated[list[Resource], Meta(max_length=MAX_RESOURCES)] = msgspec.field(
        default_factory=list
    )


class GenerateToken(Request):
    userId: Id
    userProperties: UserProperties | None = None
    permissions: TokenResources | None = None


class GeneratedToken(msgspec.Struct):
    token: str
