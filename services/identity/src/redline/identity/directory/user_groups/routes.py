"""The URL map of organization user groups: /v2/organizations/usergroups/add,
usergroups/users/add and usergroups/users/delete."""

from __future__ import annotations

from redline.envelope import AuthLevel, Call, Endpoint
from redline.identity.app_keys import USER_GROUPS
from redline.identity.directory.user_groups import models


async def add_user_groups(
    call: Call, request: models.AddUserGroups
) -> dict[str, models.GroupResult]:
    return await call.app[USER_GROUPS].add(call.api_key, request)


async def add_group_members(
    call: Call, request: models.AddGroupMembers
) -> dict[str, models.MemberResult]:
    return await call.app[USER_GROUPS].add_members(call.api_key, request)


async def delete_group_members(
    call: Call, request: models.DeleteGroupMembers
) -> dict[str, models.MemberResult]:
    return await call.app[USER_GROUPS].delete_members(call.api_key, request)


USER_GROUPS_TAG = ("user groups",)
ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/organizations/usergroups/add",
        add_user_groups,
        models.AddUserGroups,
        dict[str, models.GroupResult],
        auth=AuthLevel.API_KEY,
        message="Organization User Groups added successfully.",
        summary="Add user groups to an organization; the result is keyed by group id",
        tags=USER_GROUPS_TAG,
    ),
    Endpoint(
        "/v2/organizations/usergroups/users/add",
        add_group_members,
        models.AddGroupMembers,
        dict[str, models.MemberResult],
        auth=AuthLevel.API_KEY,
        message="Added organization users to group successfully.",
        summary="Add users of the organization to one of its user groups",
        tags=USER_GROUPS_TAG,
    ),
    Endpoint(
        "/v2/organizations/usergroups/users/delete",
        delete_group_members,
        models.DeleteGroupMembers,
        dict[str, models.MemberResult],
        auth=AuthLevel.API_KEY,
        message="Deleted users from group successfully.",
        summary="Remove users, or every user, from an organization user group",
        tags=USER_GROUPS_TAG,
    ),
]
