"""Users: adding, updating and deleting members of organizations, folders and documents;
levels and their errors."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.users_support import add, members

# adding ------------------------------------------------------------------------------------------


async def test_add_users_to_an_organization_creates_it_and_lists_them(api: ApiClient) -> None:
    ws = await api.create_workspace("users@example.com")

    added = await add(
        api,
        ws,
        organizationId="org-1",
        users=[
            {"userId": "u1", "name": "Ada Lovelace", "email": "ada@example.com"},
            {"userId": "u2", "name": "grace", "accessRole": "viewer", "initial": "GH"},
            {"userId": "u3"},
        ],
    )

    assert added.status == 200, added.body
    assert added.result["status"] == "success"
    assert added.data == {
        "u1": {"success": True, "id": "u1", "message": "User added."},
        "u2": {"success": True, "id": "u2", "message": "User added."},
        "u3": {"success": True, "id": "u3", "message": "User added."},
    }
    listed = await api.post("/v2/users/get", {"organizationId": "org-1"}, headers=ws.key_headers)
    assert listed.status == 200, listed.body
    assert listed.data == [
        {
            "userId": "u1",
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "initial": "AL",
            "accessRole": "editor",
        },
        {"userId": "u2", "name": "grace", "email": "", "initial": "GH", "accessRole": "viewer"},
        {"userId": "u3", "name": "", "email": "", "initial": "", "accessRole": "editor"},
    ]
    assert "nextPageToken" not in listed.result


async def test_initial_is_the_first_letters_of_the_first_two_words(api: ApiClient) -> None:
    ws = await api.create_workspace("initials@example.com")

    await add(
        api,
        ws,
        organizationId="o",
        users=[
            {"userId": "a", "name": "jean luc picard"},
            {"userId": "b", "name": "  élodie  "},
            {"userId": "c", "name": "ödön von horváth"},
        ],
    )

    listed = await members(api, ws, organizationId="o")
    assert listed["a"]["initial"] == "JL"
    assert listed["b"]["initial"] == "É"
    assert listed["c"]["initial"] == "ÖV"


async def test_add_at_document_level_needs_create_document_for_a_new_document(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("docusers@example.com")

    missing = await add(api, ws, organizationId="o", documentId="d1", users=[{"userId": "u1"}])
    assert_failure(missing, 404, "NOT_FOUND")

    created = await add(
        api,
        ws,
        organizationId="o",
        documentId="d1",
        createDocument=True,
        users=[{"userId": "u1", "accessRole": "viewer"}],
    )
    assert created.status == 200, created.body
    assert await members(api, ws, organizationId="o", documentId="d1") == {
        "u1": {"userId": "u1", "name": "", "email": "", "initial": "", "accessRole": "viewer"}
    }
    # Added at document level only: not a member of the organization.
    assert await members(api, ws, organizationId="o") == {}


async def test_add_at_folder_level_with_create_folder(api: ApiClient) -> None:
    ws = await api.create_workspace("folderusers@example.com")

    missing = await add(api, ws, organizationId="o", folderId="f1", users=[{"userId": "u1"}])
    assert_failure(missing, 404, "NOT_FOUND")

    created = await add(
        api, ws, organizationId="o", folderId="f1", createFolder=True, users=[{"userId": "u1"}]
    )
    assert created.status == 200, created.body
    assert set(await members(api, ws, organizationId="o", folderId="f1")) == {"u1"}
    assert await members(api, ws, organizationId="o") == {}


async def test_re_adding_without_a_role_keeps_the_role_and_given_fields_win(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("readd@example.com")
    await add(
        api,
        ws,
        organizationId="o",
        users=[{"userId": "u1", "name": "Old Name", "email": "a@x.io", "accessRole": "viewer"}],
    )

    again = await add(api, ws, organizationId="o", users=[{"userId": "u1", "name": "New Name"}])

    assert again.status == 200, again.body
    assert (await members(api, ws, organizationId="o"))["u1"] == {
        "userId": "u1",
        "name": "New Name",
        "email": "a@x.io",
        "initial": "NN",
        "accessRole": "viewer",
    }


@pytest.mark.parametrize("path", ["/v2/users/add", "/v2/users/update", "/v2/users/delete"])
async def test_document_and_folder_together_are_invalid(api: ApiClient, path: str) -> None:
    ws = await api.create_workspace("both@example.com")
    data: dict[str, Any] = {"organizationId": "o", "documentId": "d", "folderId": "f"}
    if path == "/v2/users/delete":
        data["userIds"] = ["u1"]
    else:
        data["users"] = [{"userId": "u1"}]

    response = await api.post(path, data, headers=ws.key_headers)

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.folderId"]


async def test_get_with_document_and_folder_together_is_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace("bothget@example.com")

    response = await api.post(
        "/v2/users/get",
        {"organizationId": "o", "documentId": "d", "folderId": "f"},
        headers=ws.key_headers,
    )

    assert_failure(response, 400, "INVALID_ARGUMENT")


async def test_validation_errors_name_their_paths(api: ApiClient) -> None:
    ws = await api.create_workspace("invalid@example.com")

    missing_org = await add(api, ws, users=[{"userId": "u1"}])
    assert issue_paths(assert_failure(missing_org, 400, "INVALID_ARGUMENT")) == [
        "data.organizationId"
    ]
    bad_role = await add(api, ws, organizationId="o", users=[{"userId": "u", "accessRole": "x"}])
    assert issue_paths(assert_failure(bad_role, 400, "INVALID_ARGUMENT")) == [
        "data.users[0].accessRole"
    ]
    unknown = await add(api, ws, organizationId="o", users=[{"userId": "u", "nickname": "x"}])
    assert issue_paths(assert_failure(unknown, 400, "INVALID_ARGUMENT")) == [
        "data.users[0].nickname"
    ]
    twice = await add(api, ws, organizationId="o", users=[{"userId": "u"}, {"userId": "u"}])
    assert issue_paths(assert_failure(twice, 400, "INVALID_ARGUMENT")) == ["data.users[1].userId"]
    empty = await add(api, ws, organizationId="o", users=[])
    assert_failure(empty, 400, "INVALID_ARGUMENT")
    # Nothing of the failed calls was written, not even the organization.
    nothing = await api.post("/v2/users/get", {"organizationId": "o"}, headers=ws.key_headers)
    assert_failure(nothing, 404, "NOT_FOUND")


# updating ----------------------------------------------------------------------------------------


async def test_update_changes_members_and_reports_the_others(api: ApiClient) -> None:
    ws = await api.create_workspace("update@example.com")
    await add(api, ws, organizationId="o", users=[{"userId": "u1", "name": "Ann Bee"}])

    updated = await api.post(
        "/v2/users/update",
        {
            "organizationId": "o",
            "users": [
                {"userId": "u1", "name": "Cy Dee", "accessRole": "viewer", "color": "#ff0000"},
                {"userId": "ghost", "name": "Nobody"},
            ],
        },
        headers=ws.key_headers,
    )

    assert updated.status == 200, updated.body
    assert updated.data == {
        "u1": {"success": True, "id": "u1", "message": "User updated."},
        "ghost": {"success": False, "id": "ghost", "message": "User does not exist."},
    }
    listed = await members(api, ws, organizationId="o")
    assert listed == {
        "u1": {
            "userId": "u1",
            "name": "Cy Dee",
            "email": "",
            "initial": "CD",
            "accessRole": "viewer",
            "color": "#ff0000",
        }
    }


async def test_update_at_a_level_where_the_user_is_not_a_member(api: ApiClient) -> None:
    ws = await api.create_workspace("updlevel@example.com")
    await add(api, ws, organizationId="o", users=[{"userId": "u1"}])
    await add(
        api, ws, organizationId="o", documentId="d", createDocument=True, users=[{"userId": "u2"}]
    )

    updated = await api.post(
        "/v2/users/update",
        {"organizationId": "o", "documentId": "d", "users": [{"userId": "u1"}, {"userId": "u2"}]},
        headers=ws.key_headers,
    )

    assert updated.status == 200, updated.body
    assert updated.data["u1"]["success"] is False
    assert updated.data["u2"]["success"] is True


async def test_update_in_a_missing_organization_is_not_found(api: ApiClient) -> None:
    ws = await api.create_workspace("updmissing@example.com")

    updated = await api.post(
        "/v2/users/update",
        {"organizationId": "nope", "users": [{"userId": "u1"}]},
        headers=ws.key_headers,
    )

    assert_failure(updated, 404, "NOT_FOUND")


# deleting ----------------------------------------------------------------------------------------


async def test_delete_reports_unknown_users_per_user(api: ApiClient) -> None:
    ws = await api.create_workspace("delete@example.com")
    await add(api, ws, organizationId="o", users=[{"userId": "u1"}, {"userId": "u2"}])

    deleted = await api.post(
        "/v2/users/delete",
        {"organizationId": "o", "userIds": ["u1", "ghost"]},
        headers=ws.key_headers,
    )

    assert deleted.status == 200, deleted.body
    assert deleted.result["status"] == "success"
    assert deleted.data == {
        "u1": {"success": True, "id": "u1", "message": "User removed."},
        "ghost": {"success": False, "id": "ghost", "message": "User does not exist."},
    }
    assert set(await members(api, ws, organizationId="o")) == {"u2"}


async def test_delete_from_a_document_leaves_the_organization_membership(api: ApiClient) -> None:
    ws = await api.create_workspace("deldoc@example.com")
    await add(api, ws, organizationId="o", users=[{"userId": "u1"}])
    await add(
        api, ws, organizationId="o", documentId="d", createDocument=True, users=[{"userId": "u1"}]
    )

    deleted = await api.post(
        "/v2/users/delete",
        {"organizationId": "o", "documentId": "d", "userIds": ["u1"]},
        headers=ws.key_headers,
    )

    assert deleted.data["u1"]["success"] is True
    assert await members(api, ws, organizationId="o", documentId="d") == {}
    assert set(await members(api, ws, organizationId="o")) == {"u1"}


async def test_delete_from_the_organization_removes_every_grant_in_it(api: ApiClient) -> None:
    ws = await api.create_workspace("delorg@example.com")
    await add(api, ws, organizationId="o", users=[{"userId": "u1"}])
    await add(
        api, ws, organizationId="o", documentId="d", createDocument=True, users=[{"userId": "u1"}]
    )
    await add(
        api, ws, organizationId="o", folderId="f", createFolder=True, users=[{"userId": "u1"}]
    )

    deleted = await api.post(
        "/v2/users/delete", {"organizationId": "o", "userIds": ["u1"]}, headers=ws.key_headers
    )

    assert deleted.data["u1"]["success"] is True
    assert await members(api, ws, organizationId="o") == {}
    assert await members(api, ws, organizationId="o", documentId="d") == {}
    assert await members(api, ws, organizationId="o", folderId="f") == {}


async def test_delete_in_a_missing_document_is_not_found(api: ApiClient) -> None:
    ws = await api.create_workspace("delmissing@example.com")
    await add(api, ws, organizationId="o", users=[{"userId": "u1"}])

    deleted = await api.post(
        "/v2/users/delete",
        {"organizationId": "o", "documentId": "nope", "userIds": ["u1"]},
        headers=ws.key_headers,
    )

    assert_failure(deleted, 404, "NOT_FOUND")


async def test_concurrent_adds_of_the_same_users_in_opposite_orders_all_succeed(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    users = [{"userId": f"u{i:02d}", "name": f"User {i}"} for i in range(30)]

    async def add_in(order: list[dict[str, Any]]) -> int:
        answer = await api.post(
            "/v2/users/add", {"organizationId": "org", "users": order}, headers=ws.key_headers
        )
        return answer.status

    # Each round, two adds lock the same rows, one from each end: in request order they could
    # each hold a row the other waits for.
    for _ in range(10):
        statuses = await asyncio.gather(add_in(users), add_in(users[::-1]))
        assert statuses == [200, 200]
