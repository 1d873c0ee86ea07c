"""Organization user groups: user tokens refused, groups kept per API key, and their members
read through users/get."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.credentials_support import create_key, key_headers
from tests.api.user_groups_support import (
    DELETED,
    GROUPS,
    MEMBERS_ADD,
    MEMBERS_DELETE,
    call,
    org_with_group,
)


async def test_group_endpoints_refuse_user_tokens(api: ApiClient) -> None:
    ws = await api.create_workspace("grouptokens@example.com")
    await org_with_group(api, ws, ["u1"])
    generated = await api.post("/v2/auth/generate_token", {"userId": "u1"}, headers=ws.key_headers)
    assert generated.status == 200, generated.body
    as_user = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": generated.data["token"]}
    where = {"organizationId": "acme", "organizationUserGroupId": "eng"}
    for path, data in [
        (GROUPS, {"organizationId": "acme", "organizationUserGroups": [{"groupId": "g"}]}),
        (MEMBERS_ADD, {**where, "userIds": ["u1"]}),
        (MEMBERS_DELETE, {**where, "deleteAll": True}),
    ]:
        assert_failure(await api.post(path, data, headers=as_user), 403, "PERMISSION_DENIED")


# tenancy -----------------------------------------------------------------------------------------


async def test_groups_belong_to_one_api_key(api: ApiClient) -> None:
    owner = await api.create_workspace("groupowner@example.com")
    await org_with_group(api, owner, ["u1"])
    await call(
        api,
        owner.key_headers,
        MEMBERS_ADD,
        organizationId="acme",
        organizationUserGroupId="eng",
        userIds=["u1"],
    )
    second = await create_key(api, owner, apiKeyName="Second")
    other_key = key_headers(second["apiKey"], second["authToken"])
    intruder = await api.create_workspace("groupintruder@example.com")

    for headers in (other_key, intruder.key_headers):
        # The same organization id names nothing of the owner's.
        await add_as(api, headers, "acme", ["u1"])
        for path, data in [
            (MEMBERS_ADD, {"userIds": ["u1"]}),
            (MEMBERS_DELETE, {"userIds": ["u1"]}),
            (MEMBERS_DELETE, {"deleteAll": True}),
        ]:
            where = {"organizationId": "acme", "organizationUserGroupId": "eng"}
            missing = await api.post(path, {**where, **data}, headers=headers)
            assert_failure(missing, 404, "NOT_FOUND")
        # Its own group of the same id is its own, with its own members.
        made = await call(
            api, headers, GROUPS, organizationId="acme", organizationUserGroups=[{"groupId": "eng"}]
        )
        assert made.data["eng"]["message"] == "Organization user group added."
        emptied = await call(
            api,
            headers,
            MEMBERS_DELETE,
            organizationId="acme",
            organizationUserGroupId="eng",
            deleteAll=True,
        )
        assert emptied.data == {}

    kept = await call(
        api,
        owner.key_headers,
        MEMBERS_DELETE,
        organizationId="acme",
        organizationUserGroupId="eng",
        deleteAll=True,
    )
    assert kept.data == {"u1": DELETED}


async def add_as(api: ApiClient, headers: dict[str, str], org: str, users: list[str]) -> None:
    added = await api.post(
        "/v2/users/add",
        {"organizationId": org, "users": [{"userId": u} for u in users]},
        headers=headers,
    )
    assert added.status == 200, added.body


# reading -----------------------------------------------------------------------------------------


async def test_users_get_lists_the_members_of_the_groups_named(api: ApiClient) -> None:
    ws = await api.create_workspace("groupreads@example.com")
    await org_with_group(api, ws, ["u1", "u2", "u3"])
    ops = [{"groupId": "ops"}]
    await call(api, ws.key_headers, GROUPS, organizationId="acme", organizationUserGroups=ops)
    for group, users in (("eng", ["u1", "u2"]), ("ops", ["u2", "u3"])):
        added = await call(
            api,
            ws.key_headers,
            MEMBERS_ADD,
            organizationId="acme",
            organizationUserGroupId=group,
            userIds=users,
        )
        assert added.status == 200, added.body

    async def listed(**filters: Any) -> list[str]:
        got = await call(api, ws.key_headers, "/v2/users/get", organizationId="acme", **filters)
        assert got.status == 200, got.body
        return [user["userId"] for user in got.data]

    assert await listed(organizationUserGroupIds=["eng"]) == ["u1", "u2"]
    assert await listed(organizationUserGroupIds=["eng", "ops"]) == ["u1", "u2", "u3"]
    assert await listed(organizationUserGroupIds=["ops"], userIds=["u1", "u3"]) == ["u3"]
    assert await listed(organizationUserGroupIds=["nope"]) == []
    too_many = await call(
        api,
        ws.key_headers,
        "/v2/users/get",
        organizationId="acme",
        organizationUserGroupIds=[f"g{i}" for i in range(31)],
    )
    error = assert_failure(too_many, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.organizationUserGroupIds"]
