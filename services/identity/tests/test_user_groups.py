"""Organization user groups against a real database, where the HTTP API cannot look: whom a
group names for a tagged comment (`rpc.identity.usergroups.members`), and the delete rule."""

from __future__ import annotations

import pytest

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity.directory.user_groups import models
from redline.identity.directory.user_groups.service import UserGroupService, members_to_delete
from redline.pg import Pool
from redline.proto.rpc import GroupMember, UserGroupMembersGet

KEY = ApiKeyPrincipal(workspace_id="ws-1", api_key="key-1")
OTHER = ApiKeyPrincipal(workspace_id="ws-1", api_key="key-2")


@pytest.fixture
async def pool(pool: Pool) -> Pool:
    """The identity database with a second key in the same workspace, and acme under each."""
    async with pool.acquire() as conn:
        await conn.execute(
            "INSERT INTO identity.api_key (api_key, workspace_id, name, key_type)"
            " VALUES ($1, $2, 'k', 'testing')",
            OTHER.api_key,
            OTHER.workspace_id,
        )
        for key in (KEY, OTHER):
            await conn.execute(
                "INSERT INTO identity.organization (api_key, organization_id) VALUES ($1, 'acme')",
                key.api_key,
            )
    return pool


async def member_of_acme(pool: Pool, user_id: str, name: str = "") -> None:
    await pool.execute(
        "INSERT INTO identity.app_user (api_key, user_id, name, email) VALUES ($1, $2, $3, '')",
        KEY.api_key,
        user_id,
        name,
    )
    await pool.execute(
        "INSERT INTO identity.access_grant (api_key, organization_id, user_id, resource_type,"
        " resource_id, access_role) VALUES ($1, 'acme', $2, 'organization', 'acme', 'editor')",
        KEY.api_key,
        user_id,
    )


async def eng_with(service: UserGroupService, user_ids: list[str]) -> None:
    group = models.NewUserGroup(groupId="eng", groupName="Engineering")
    await service.add(
        KEY, models.AddUserGroups(organizationId="acme", organizationUserGroups=[group])
    )
    await service.add_members(
        KEY,
        models.AddGroupMembers(
            organizationId="acme", organizationUserGroupId="eng", userIds=user_ids
        ),
    )


def asked(api_key: str, *group_ids: str) -> UserGroupMembersGet:
    return UserGroupMembersGet(apiKey=api_key, organizationId="acme", groupIds=list(group_ids))


async def test_members_name_the_groups_users_with_their_profiles(pool: Pool) -> None:
    service = UserGroupService(pool)
    await member_of_acme(pool, "ana", "Ana")
    await member_of_acme(pool, "ben")
    await eng_with(service, ["ben", "ana"])

    answer = await service.members(asked(KEY.api_key, "eng", "missing", "eng"))

    assert answer.groups == {
        "eng": [GroupMember(userId="ana", name="Ana"), GroupMember(userId="ben")]
    }
    # The same ids under another API key name no one.
    assert (await service.members(asked(OTHER.api_key, "eng"))).groups == {}


async def test_a_member_whose_organization_grant_expired_is_not_named(pool: Pool) -> None:
    service = UserGroupService(pool)
    await member_of_acme(pool, "ana")
    await member_of_acme(pool, "ben")
    await eng_with(service, ["ana", "ben"])
    await pool.execute(
        "UPDATE identity.access_grant SET expires_at = now() - interval '1 second'"
        " WHERE user_id = 'ben'"
    )

    answer = await service.members(asked(KEY.api_key, "eng"))

    assert [m.userId for m in answer.groups["eng"]] == ["ana"]


def test_a_delete_names_users_or_all_of_them() -> None:
    def request(**fields: object) -> models.DeleteGroupMembers:
        return models.DeleteGroupMembers(
            organizationId="acme", organizationUserGroupId="eng", **fields
        )

    assert members_to_delete(request(userIds=["a", "b"])) == ["a", "b"]
    assert members_to_delete(request(userIds=["a"], deleteAll=False)) == ["a"]
    assert members_to_delete(request(deleteAll=True)) is None
    for refused in (
        request(),
        request(deleteAll=False),
        request(deleteAll=True, userIds=["a"]),
        request(userIds=["a", "a"]),
    ):
        with pytest.raises(InvalidArgument):
            members_to_delete(refused)
