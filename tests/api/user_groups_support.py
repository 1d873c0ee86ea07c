"""Requests the user group tests share: the three endpoints, a group to work on, and the
per-user results they answer."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace
from tests.api.users_support import add

GROUPS = "/v2/organizations/usergroups/add"
MEMBERS_ADD = "/v2/organizations/usergroups/users/add"
MEMBERS_DELETE = "/v2/organizations/usergroups/users/delete"


async def call(api: ApiClient, headers: dict[str, str], path: str, **data: Any) -> Response:
    return await api.post(path, data, headers=headers)


async def org_with_group(api: ApiClient, ws: Workspace, users: list[str]) -> None:
    """Organization "acme" with `users` as members and an empty group "eng"."""
    added = await add(api, ws, organizationId="acme", users=[{"userId": u} for u in users])
    assert added.status == 200, added.body
    group = [{"groupId": "eng", "groupName": "Engineering"}]
    made = await call(
        api, ws.key_headers, GROUPS, organizationId="acme", organizationUserGroups=group
    )
    assert made.status == 200, made.body


def member(success: bool, message: str) -> dict[str, Any]:
    return {"success": success, "organizationUserGroupId": "eng", "message": message}


ADDED = member(True, "User added to organization user group.")
DELETED = member(True, "User deleted from organization user group.")
