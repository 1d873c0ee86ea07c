"""Rules of organization user groups (see docs/decisions/identity.md, "User groups"):

- A group belongs to one organization of the API key and goes with it. usergroups/add creates a
  missing organization only with `createOrganization`; otherwise it is NOT_FOUND. Adding a group
  that exists keeps it (and its members) and takes the `groupName` given.
- A member is a user of the group's organization: users/add of a user who is not a member of the
  organization fails for that user. A user who leaves the organization leaves its groups, and a
  member whose organization grant expired does not count while it is expired.
- users/delete removes the `userIds` named, or every member with `deleteAll: true`.
- A group grants no access: permissions go to users (the hosted reference grants none to groups).
- These endpoints manage the API key's directory: they need the key's own auth token.

A group tagged in a comment names its members: `members` answers `rpc.identity.usergroups.members`.
"""

from __future__ import annotations

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity import errors
from redline.identity.caller import require_key_caller
from redline.identity.directory.ensure import ensure_organization
from redline.identity.directory.rules import check_unique
from redline.identity.directory.user_groups import models, storage
from redline.pg import Connection, Pool
from redline.proto.rpc import GroupMember, UserGroupMembers, UserGroupMembersGet

GROUP_ADDED = "Organization user group added."
GROUP_UPDATED = "Organization user group updated."
MEMBER_ADDED = "User added to organization user group."
NOT_IN_ORGANIZATION = "User is not a member of the organization."
MEMBER_DELETED = "User deleted from organization user group."
NOT_IN_GROUP = "User is not in the organization user group."
_REPEATED_USER = "User {!r} appears twice."
_REPEATED_GROUP = "Group {!r} appears twice."


def members_to_delete(request: models.DeleteGroupMembers) -> list[str] | None:
    """The users a delete names; None: every member (`deleteAll`)."""
    if request.deleteAll:
        if request.userIds:
            raise InvalidArgument.field(
                "data.userIds", "Give userIds or deleteAll: true, not both."
            )
        return None
    if not request.userIds:
        raise InvalidArgument.field(
            "data.userIds", "Give userIds, or deleteAll: true.", code="missing_field"
        )
    check_unique(request.userIds, "data.userIds[{}]", _REPEATED_USER)
    return list(request.userIds)


class UserGroupService:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def add(
        self, caller: ApiKeyPrincipal, request: models.AddUserGroups
    ) -> dict[str, models.GroupResult]:
        require_key_caller(caller)
        groups = request.organizationUserGroups
        check_unique(
            (g.groupId for g in groups),
            "data.organizationUserGroups[{}].groupId",
            _REPEATED_GROUP,
        )
        async with self._pool.acquire() as conn, conn.transaction():
            await ensure_organization(
                conn, caller, request.organizationId, create=request.createOrganization
            )
            saved = await storage.save_groups(
                conn,
                caller.api_key,
                request.organizationId,
                {g.groupId: g.groupName for g in groups},
            )
        by_id = {s.group_id: s for s in saved}
        return {
            g.groupId: models.GroupResult(
                True,
                by_id[g.groupId].id,
                GROUP_ADDED if by_id[g.groupId].created else GROUP_UPDATED,
            )
            for g in groups
        }

    async def _hold_group(
        self, conn: Connection, caller: ApiKeyPrincipal, organization_id: str, group_id: str
    ) -> None:
        await ensure_organization(conn, caller, organization_id, create=False)
        if not await storage.lock_group(conn, caller.api_key, organization_id, group_id):
            raise errors.user_group_not_found()

    async def add_members(
        self, caller: ApiKeyPrincipal, request: models.AddGroupMembers
    ) -> dict[str, models.MemberResult]:
        require_key_caller(caller)
        check_unique(request.userIds, "data.userIds[{}]", _REPEATED_USER)
        org, group = request.organizationId, request.organizationUserGroupId
        async with self._pool.acquire() as conn, conn.transaction():
            await self._hold_group(conn, caller, org, group)
            admitted = await storage.organization_members(
                conn, caller.api_key, org, list(request.userIds)
            )
            await storage.add_members(
                conn, caller.api_key, org, group, [u for u in request.userIds if u in admitted]
            )
        return {
            user_id: models.MemberResult(True, group, MEMBER_ADDED)
            if user_id in admitted
            else models.MemberResult(False, group, NOT_IN_ORGANIZATION)
            for user_id in request.userIds
        }

    async def delete_members(
        self, caller: ApiKeyPrincipal, request: models.DeleteGroupMembers
    ) -> dict[str, models.MemberResult]:
        require_key_caller(caller)
        named = members_to_delete(request)
        org, group = request.organizationId, request.organizationUserGroupId
        async with self._pool.acquire() as conn, conn.transaction():
            await self._hold_group(conn, caller, org, group)
            removed = await storage.remove_members(conn, caller.api_key, org, group, named)
        gone = set(removed)
        return {
            user_id: models.MemberResult(True, group, MEMBER_DELETED)
            if user_id in gone
            else models.MemberResult(False, group, NOT_IN_GROUP)
            for user_id in (removed if named is None else named)
        }

    # rpc.identity.usergroups.members ------------------------------------------------------------

    async def members(self, request: UserGroupMembersGet) -> UserGroupMembers:
        rows = await storage.members_of_groups(
            self._pool, request.apiKey, request.organizationId, list(set(request.groupIds))
        )
        groups: dict[str, list[GroupMember]] = {}
        for row in rows:
            groups.setdefault(row.group_id, []).append(
                GroupMember(userId=row.user_id, name=row.name or None, email=row.email or None)
            )
        return UserGroupMembers(groups)
