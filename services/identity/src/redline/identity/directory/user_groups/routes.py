"""The URL map of organization user groups: /v2/organizations/usergroups/add,
usergroups/users/add and usergroups/users/delete."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.app_keys import USER_GROUPS
from redline.identity.directory.user_groups.service import UserGroupService

USER_GROUPS_TAG = ("user groups",)
ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/organizations/usergroups/add",
        USER_GROUPS,
        UserGroupService.add,
        auth=AuthLevel.API_KEY,
        message="Organization User Groups added successfully.",
        summary="Add user groups to an organization; the result is keyed by group id",
        tags=USER_GROUPS_TAG,
    ),
    Endpoint.of(
        "/v2/organizations/usergroups/users/add",
        USER_GROUPS,
        UserGroupService.add_members,
        auth=AuthLevel.API_KEY,
        message="Added organization users to group successfully.",
        summary="Add users of the organization to one of its user groups",
        tags=USER_GROUPS_TAG,
    ),
    Endpoint.of(
        "/v2/organizations/usergroups/users/delete",
        USER_GROUPS,
        UserGroupService.delete_members,
        auth=AuthLevel.API_KEY,
        message="Deleted users from group successfully.",
        summary="Remove users, or every user, from an organization user group",
        tags=USER_GROUPS_TAG,
    ),
]
