"""Organization user groups: adding groups, adding and removing their members, and what each
endpoint refuses."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.user_groups_support import (
    ADDED,
    DELETED,
    GROUPS,
    MEMBERS_ADD,
    MEMBERS_DELETE,
    call,
    member,
    org_with_group,
)
from tests.api.users_support import add

# groups ------------------------------------------------------------------------------------------


async def test_add_groups_answers_per_group_with_its_id_and_keeps_it(api: ApiClient) -> None:
    ws = await api.create_workspace("groups@example.com")
    await add(api, ws, organizationId="acme", users=[{"userId": "u1"}])

    groups = [{"groupId": "eng", "groupName": "Engineering"}, {"groupId": "ops"}]
    made = await call(
        api, ws.key_headers, GROUPS, organizationId="acme", organizationUserGroups=groups
    )

    assert made.status == 200, made.body
    assert made.result["status"] == "success"
    assert made.result["message"] == "Organization User Groups added successfully."
    assert set(made.data) == {"eng", "ops"}
    eng = made.data["eng"]
    assert eng["success"] is True
    assert eng["message"] == "Organization user group added."
    assert len(eng["id"]) == 32
    assert eng["id"] != made.data["ops"]["id"]
    # Adding it again keeps the group, its id and its members.
    await call(
        api,
        ws.key_headers,
        MEMBERS_ADD,
        organizationId="acme",
        organizationUserGroupId="eng",
        userIds=["u1"],
    )
    again = await call(
        api,
        ws.key_headers,
        GROUPS,
        organizationId="acme",
        organizationUserGroups=[{"groupId": "eng", "groupName": "Platform"}],
    )
    assert again.data == {
        "eng": {"success": True, "id": eng["id"], "message": "Organization user group updated."}
    }
    kept = await call(
        api,
        ws.key_headers,
        MEMBERS_DELETE,
        organizationId="acme",
        organizationUserGroupId="eng",
        userIds=["u1"],
    )
    assert kept.data == {"u1": DELETED}


async def test_a_missing_organization_is_created_only_when_asked(api: ApiClient) -> None:
    ws = await api.create_workspace("grouporgs@example.com")
    groups = [{"groupId": "eng", "groupName": "Engineering"}]

    missing = await call(
        api, ws.key_headers, GROUPS, organizationId="new", organizationUserGroups=groups
    )
    assert_failure(missing, 404, "NOT_FOUND")

    made = await call(
        api,
        ws.key_headers,
        GROUPS,
        organizationId="new",
        organizationUserGroups=groups,
        createOrganization=True,
    )
    assert made.status == 200, made.body
    listed = await call(api, ws.key_headers, "/v2/organizations/get", organizationIds=["new"])
    assert [o["id"] for o in listed.data] == ["new"]


async def test_add_groups_validates_its_body(api: ApiClient) -> None:
    ws = await api.create_workspace("groupchecks@example.com")
    await add(api, ws, organizationId="acme", users=[{"userId": "u1"}])
    cases: list[tuple[dict[str, Any], str]] = [
        ({"organizationId": "acme"}, "data.organizationUserGroups"),
        ({"organizationUserGroups": [{"groupId": "g"}]}, "data.organizationId"),
        ({"organizationId": "acme", "organizationUserGroups": []}, "data.organizationUserGroups"),
        (
            {"organizationId": "acme", "organizationUserGroups": [{"groupId": "g"}] * 101},
            "data.organizationUserGroups",
        ),
        (
            {"organizationId": "acme", "organizationUserGroups": [{"groupName": "G"}]},
            "data.organizationUserGroups[0].groupId",
        ),
        (
            {"organizationId": "acme", "organizationUserGroups": [{"groupId": 7}]},
            "data.organizationUserGroups[0].groupId",
        ),
        (
            {"organizationId": "acme", "organizationUserGroups": [{"groupId": "g", "x": 1}]},
            "data.organizationUserGroups[0].x",
        ),
        (
            {
                "organizationId": "acme",
                "organizationUserGroups": [{"groupId": "g"}, {"groupId": "g"}],
            },
            "data.organizationUserGroups[1].groupId",
        ),
        (
            {
                "organizationId": "acme",
                "organizationUserGroups": [{"groupId": "g"}],
                "createOrganization": "yes",
            },
            "data.createOrganization",
        ),
    ]
    for data, path in cases:
        refused = await api.post(GROUPS, data, headers=ws.key_headers)
        error = assert_failure(refused, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == [path], (data, error)
    # Nothing of a refused request was kept.
    absent = await call(
        api,
        ws.key_headers,
        MEMBERS_ADD,
        organizationId="acme",
        organizationUserGroupId="g",
        userIds=["u1"],
    )
    assert_failure(absent, 404, "NOT_FOUND")


# members -----------------------------------------------------------------------------------------


async def test_members_are_users_of_the_organization(api: ApiClient) -> None:
    ws = await api.create_workspace("members@example.com")
    await org_with_group(api, ws, ["u1", "u2"])
    # A user of another organization of the key is not one of acme's.
    await add(api, ws, organizationId="other", users=[{"userId": "stranger"}])

    added = await call(
        api,
        ws.key_headers,
        MEMBERS_ADD,
        organizationId="acme",
        organizationUserGroupId="eng",
        userIds=["u1", "stranger", "u2", "nobody"],
    )

    assert added.status == 200, added.body
    assert added.result["message"] == "Added organization users to group successfully."
    refused = member(False, "User is not a member of the organization.")
    assert added.data == {"u1": ADDED, "stranger": refused, "u2": ADDED, "nobody": refused}
    # Adding a member again changes nothing and says so as the first time.
    again = await call(
        api,
        ws.key_headers,
        MEMBERS_ADD,
        organizationId="acme",
        organizationUserGroupId="eng",
        userIds=["u1"],
    )
    assert again.data == {"u1": ADDED}
    removed = await call(
        api,
        ws.key_headers,
        MEMBERS_DELETE,
        organizationId="acme",
        organizationUserGroupId="eng",
        deleteAll=True,
    )
    assert removed.data == {"u1": DELETED, "u2": DELETED}


async def test_delete_named_users_or_all_of_them(api: ApiClient) -> None:
    ws = await api.create_workspace("delmembers@example.com")
    await org_with_group(api, ws, ["u1", "u2", "u3"])
    await call(
        api,
        ws.key_headers,
        MEMBERS_ADD,
        organizationId="acme",
        organizationUserGroupId="eng",
        userIds=["u1", "u2", "u3"],
    )

    some = await call(
        api,
        ws.key_headers,
        MEMBERS_DELETE,
        organizationId="acme",
        organizationUserGroupId="eng",
        userIds=["u2", "u9"],
        deleteAll=False,
    )
    assert some.status == 200, some.body
    assert some.result["message"] == "Deleted users from group successfully."
    assert some.data == {
        "u2": DELETED,
        "u9": member(False, "User is not in the organization user group."),
    }
    rest = await call(
        api,
        ws.key_headers,
        MEMBERS_DELETE,
        organizationId="acme",
        organizationUserGroupId="eng",
        deleteAll=True,
    )
    assert rest.data == {"u1": DELETED, "u3": DELETED}
    empty = await call(
        api,
        ws.key_headers,
        MEMBERS_DELETE,
        organizationId="acme",
        organizationUserGroupId="eng",
        deleteAll=True,
    )
    assert empty.status == 200, empty.body
    assert empty.data == {}


async def test_leaving_the_organization_leaves_its_groups(api: ApiClient) -> None:
    ws = await api.create_workspace("leavers@example.com")
    await org_with_group(api, ws, ["u1", "u2"])
    await call(
        api,
        ws.key_headers,
        MEMBERS_ADD,
        organizationId="acme",
        organizationUserGroupId="eng",
        userIds=["u1", "u2"],
    )

    left = await api.post(
        "/v2/users/delete", {"organizationId": "acme", "userIds": ["u1"]}, headers=ws.key_headers
    )
    assert left.status == 200, left.body
    await add(api, ws, organizationId="acme", users=[{"userId": "u1"}])

    removed = await call(
        api,
        ws.key_headers,
        MEMBERS_DELETE,
        organizationId="acme",
        organizationUserGroupId="eng",
        deleteAll=True,
    )
    assert removed.data == {"u2": DELETED}


async def test_member_changes_need_the_organization_and_the_group(api: ApiClient) -> None:
    ws = await api.create_workspace("groupmissing@example.com")
    await org_with_group(api, ws, ["u1"])
    for path in (MEMBERS_ADD, MEMBERS_DELETE):
        for org, group in (("nope", "eng"), ("acme", "nope")):
            missing = await call(
                api,
                ws.key_headers,
                path,
                organizationId=org,
                organizationUserGroupId=group,
                userIds=["u1"],
            )
            error = assert_failure(missing, 404, "NOT_FOUND")
            assert error["message"] in (
                "Organization not found.",
                "Organization user group not found.",
            )


async def test_member_requests_are_validated(api: ApiClient) -> None:
    ws = await api.create_workspace("memberchecks@example.com")
    await org_with_group(api, ws, ["u1"])
    where = {"organizationId": "acme", "organizationUserGroupId": "eng"}
    cases: list[tuple[str, dict[str, Any], str]] = [
        (
            MEMBERS_ADD,
            {"organizationId": "acme", "userIds": ["u1"]},
            "data.organizationUserGroupId",
        ),
        (MEMBERS_ADD, where, "data.userIds"),
        (MEMBERS_ADD, {**where, "userIds": []}, "data.userIds"),
        (MEMBERS_ADD, {**where, "userIds": "u1"}, "data.userIds"),
        (MEMBERS_ADD, {**where, "userIds": ["u"] * 101}, "data.userIds"),
        (MEMBERS_ADD, {**where, "userIds": ["u1", "u1"]}, "data.userIds[1]"),
        (MEMBERS_ADD, {**where, "userIds": [""]}, "data.userIds[0]"),
        (MEMBERS_DELETE, where, "data.userIds"),
        (MEMBERS_DELETE, {**where, "deleteAll": False}, "data.userIds"),
        (MEMBERS_DELETE, {**where, "deleteAll": True, "userIds": ["u1"]}, "data.userIds"),
        (MEMBERS_DELETE, {**where, "deleteAll": "true"}, "data.deleteAll"),
        (MEMBERS_DELETE, {**where, "userIds": ["u1"], "extra": 1}, "data.extra"),
    ]
    for path, data, field in cases:
        refused = await api.post(path, data, headers=ws.key_headers)
        error = assert_failure(refused, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == [field], (path, data, error)
