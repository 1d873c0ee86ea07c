"""Organization user groups: request and response Structs of /v2/organizations/usergroups/*."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from redline.identity.directory.models import BATCH_MAX, IdBatch
from redline.identity.fields import Id, Name, Request


class NewUserGroup(Request):
    groupId: Id
    groupName: Name | None = None


class AddUserGroups(Request):
    organizationId: Id
    organizationUserGroups: Annotated[list[NewUserGroup], Meta(min_length=1, max_length=BATCH_MAX)]
    # Create the organization when it does not exist; otherwise a missing one is NOT_FOUND.
    createOrganization: bool = False


class AddGroupMembers(Request):
    organizationId: Id
    organizationUserGroupId: Id
    userIds: IdBatch


class DeleteGroupMembers(Request):
    __openapi_any_of__ = (("userIds",), ("deleteAll",))
    __openapi_rule__ = "Give userIds, or deleteAll: true (then without userIds)."

    organizationId: Id
    organizationUserGroupId: Id
    userIds: IdBatch | None = None
    deleteAll: bool = False


class GroupResult(msgspec.Struct):
    """One group's outcome, keyed by its groupId; `id` is the group's own opaque id."""

    success: bool
    id: str
    message: str


class MemberResult(msgspec.Struct):
    """One user's outcome, keyed by user id."""

    success: bool
    organizationUserGroupId: str
    message: str
