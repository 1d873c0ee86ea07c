"""Organizations: add, update, get (paged), delete with everything in them; keyed results,
partial failures, validation, and tenancy between workspaces."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace, assert_failure, issue_paths


async def add_orgs(api: ApiClient, ws: Workspace, *ids: str) -> None:
    added = await api.post(
        "/v2/organizations/add",
        {"organizations": [{"organizationId": i, "organizationName": i.upper()} for i in ids]},
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body


async def get_orgs(api: ApiClient, ws: Workspace, **data: Any) -> Response:
    return await api.post("/v2/organizations/get", data, headers=ws.key_headers)


# add ---------------------------------------------------------------------------------------------


async def test_add_answers_a_map_keyed_by_organization_id(api: ApiClient) -> None:
    ws = await api.create_workspace()

    added = await api.post(
        "/v2/organizations/add",
        {
            "organizations": [
                {"organizationId": "acme", "organizationName": "Acme"},
                {
                    "organizationId": "globex",
                    "organizationName": "Globex",
                    "metadata": {"plan": "enterprise", "seats": 40},
                },
            ]
        },
        headers=ws.key_headers,
    )

    assert added.status == 200, added.body
    assert added.result["status"] == "success"
    assert added.result["message"] == "Organization(s) added successfully."
    assert added.data == {
        "acme": {"success": True, "id": "acme", "message": "Added Successfully"},
        "globex": {"success": True, "id": "globex", "message": "Added Successfully"},
    }
    found = await get_orgs(api, ws, organizationIds=["globex", "acme"])
    assert found.status == 200, found.body
    by_id = {org["id"]: org for org in found.data}
    assert set(by_id) == {"acme", "globex"}
    globex = by_id["globex"]
    assert set(globex) == {"id", "organizationName", "metadata", "createdAt", "lastUpdated"}
    assert globex["organizationName"] == "Globex"
    assert globex["metadata"] == {"plan": "enterprise", "seats": 40}
    assert globex["createdAt"] > 1_600_000_000_000
    assert by_id["acme"]["metadata"] == {}


async def test_add_with_some_existing_ids_fails_as_internal_and_keeps_the_new_ones(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    await add_orgs(api, ws, "acme")

    added = await api.post(
        "/v2/organizations/add",
        {
            "organizations": [
                {"organizationId": "acme", "organizationName": "Acme again"},
                {"organizationId": "initech", "organizationName": "Initech"},
            ]
        },
        headers=ws.key_headers,
    )

    error = assert_failure(added, 500, "INTERNAL")
    assert error["details"] == {
        "acme": {
            "success": False,
            "id": "acme",
            "message": "Organization already exists.",
            "code": "already-exists",
        },
        "initech": {"success": True, "id": "initech", "message": "Added Successfully"},
    }
    found = await get_orgs(api, ws)
    names = {org["id"]: org["organizationName"] for org in found.data}
    assert names == {"acme": "ACME", "initech": "Initech"}


async def test_add_naming_an_id_twice_is_invalid_and_names_the_entry(api: ApiClient) -> None:
    ws = await api.create_workspace()

    added = await api.post(
        "/v2/organizations/add",
        {
            "organizations": [
                {"organizationId": "a"},
                {"organizationId": "b"},
                {"organizationId": "a"},
            ]
        },
        headers=ws.key_headers,
    )

    error = assert_failure(added, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.organizations[2].organizationId"]
    assert (await get_orgs(api, ws)).data == []


async def test_add_without_an_id_names_the_field_path(api: ApiClient) -> None:
    ws = await api.create_workspace()

    added = await api.post(
        "/v2/organizations/add",
        {"organizations": [{"organizationId": "a"}, {"organizationName": "no id"}]},
        headers=ws.key_headers,
    )

    error = assert_failure(added, 400, "INVALID_ARGUMENT")
    assert error["details"]["issues"][0]["code"] == "missing_field"
    assert issue_paths(error) == ["data.organizations[1].organizationId"]


async def test_extra_fields_go_in_metadata_not_beside_the_named_ones(api: ApiClient) -> None:
    ws = await api.create_workspace()

    added = await api.post(
        "/v2/organizations/add",
        {"organizations": [{"organizationId": "a", "description": "typo-prone"}]},
        headers=ws.key_headers,
    )

    error = assert_failure(added, 400, "INVALID_ARGUMENT")
    assert error["details"]["issues"][0]["code"] == "unknown_field"
    assert issue_paths(error) == ["data.organizations[0].description"]


async def test_add_refuses_an_empty_list_and_an_overlong_id(api: ApiClient) -> None:
    ws = await api.create_workspace()

    empty = await api.post("/v2/organizations/add", {"organizations": []}, headers=ws.key_headers)
    too_long = await api.post(
        "/v2/organizations/add",
        {"organizations": [{"organizationId": "x" * 257}]},
        headers=ws.key_headers,
    )

    assert issue_paths(assert_failure(empty, 400, "INVALID_ARGUMENT")) == ["data.organizations"]
    assert issue_paths(assert_failure(too_long, 400, "INVALID_ARGUMENT")) == [
        "data.organizations[0].organizationId"
    ]


async def test_metadata_larger_than_its_limit_is_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace()

    added = await api.post(
        "/v2/organizations/add",
        {"organizations": [{"organizationId": "a", "metadata": {"blob": "x" * 20_000}}]},
        headers=ws.key_headers,
    )

    error = assert_failure(added, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.organizations[0].metadata"]


# update ------------------------------------------------------------------------------------------


async def test_update_renames_and_merges_metadata_a_null_removing_a_key(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await api.post(
        "/v2/organizations/add",
        {"organizations": [{"organizationId": "acme", "metadata": {"plan": "free", "tier": 1}}]},
        headers=ws.key_headers,
    )

    updated = await api.post(
        "/v2/organizations/update",
        {
            "organizations": [
                {
                    "organizationId": "acme",
                    "organizationName": "Acme Corp",
                    "metadata": {"plan": "pro", "tier": None, "region": "eu"},
                }
            ]
        },
        headers=ws.key_headers,
    )

    assert updated.status == 200, updated.body
    assert updated.result["message"] == "Organization(s) updated successfully."
    assert updated.data == {
        "acme": {"success": True, "id": "acme", "message": "Updated Successfully"}
    }
    (org,) = (await get_orgs(api, ws, organizationIds=["acme"])).data
    assert org["organizationName"] == "Acme Corp"
    assert org["metadata"] == {"plan": "pro", "region": "eu"}
    assert org["lastUpdated"] >= org["createdAt"]


async def test_update_of_a_missing_id_fails_as_internal_and_keeps_the_others(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    await add_orgs(api, ws, "acme")

    updated = await api.post(
        "/v2/organizations/update",
        {
            "organizations": [
                {"organizationId": "acme", "organizationName": "Renamed"},
                {"organizationId": "ghost", "organizationName": "Nobody"},
            ]
        },
        headers=ws.key_headers,
    )

    error = assert_failure(updated, 500, "INTERNAL")
    assert error["details"]["ghost"] == {
        "success": False,
        "id": "ghost",
        "message": "Organization does not exist.",
        "code": "not-found",
    }
    assert error["details"]["acme"]["success"] is True
    (org,) = (await get_orgs(api, ws)).data
    assert org["organizationName"] == "Renamed"


# get ---------------------------------------------------------------------------------------------


async def test_get_pages_through_every_organization_in_id_order(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_orgs(api, ws, "e", "c", "a", "d", "b")

    seen: list[str] = []
    token = None
    pages = 0
    while True:
        data: dict[str, Any] = {"pageSize": 2}
        if token:
            data["pageToken"] = token
        page = await get_orgs(api, ws, **data)
        assert page.status == 200, page.body
        pages += 1
        seen += [org["id"] for org in page.data]
        token = page.result.get("nextPageToken")
        if token is None:
            break
        assert len(page.data) == 2

    assert seen == ["a", "b", "c", "d", "e"]
    assert pages == 3


async def test_get_by_ids_leaves_out_unknown_ids(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_orgs(api, ws, "acme", "globex")

    found = await get_orgs(api, ws, organizationIds=["globex", "nobody"])

    assert [org["id"] for org in found.data] == ["globex"]
    assert "nextPageToken" not in found.result


async def test_get_by_more_than_thirty_ids_names_the_field(api: ApiClient) -> None:
    ws = await api.create_workspace()

    found = await get_orgs(api, ws, organizationIds=[f"o{i}" for i in range(31)])

    assert issue_paths(assert_failure(found, 400, "INVALID_ARGUMENT")) == ["data.organizationIds"]


async def test_page_token_of_another_workspace_is_invalid(api: ApiClient) -> None:
    a = await api.create_workspace("a@example.com")
    b = await api.create_workspace("b@example.com")
    await add_orgs(api, a, "o1", "o2")
    await add_orgs(api, b, "o1", "o2")
    token = (await get_orgs(api, a, pageSize=1)).result["nextPageToken"]

    replayed = await get_orgs(api, b, pageSize=1, pageToken=token)

    assert issue_paths(assert_failure(replayed, 400, "INVALID_ARGUMENT")) == ["data.pageToken"]


# delete ------------------------------------------------------------------------------------------


async def test_delete_takes_the_organizations_folders_and_documents_along(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_orgs(api, ws, "acme", "globex")
    for org in ("acme", "globex"):
        folders = await api.post(
            "/v2/organizations/folders/add",
            {"organizationId": org, "folders": [{"folderId": "f1"}]},
            headers=ws.key_headers,
        )
        assert folders.status == 200, folders.body
        docs = await api.post(
            "/v2/organizations/documents/add",
            {"organizationId": org, "folderId": "f1", "documents": [{"documentId": "d1"}]},
            headers=ws.key_headers,
        )
        assert docs.status == 200, docs.body

    deleted = await api.post(
        "/v2/organizations/delete", {"organizationIds": ["acme"]}, headers=ws.key_headers
    )

    assert deleted.status == 200, deleted.body
    assert deleted.result["message"] == "Organization(s) deleted successfully."
    assert deleted.data == {
        "acme": {"success": True, "id": "acme", "message": "Deleted Successfully"}
    }
    assert [org["id"] for org in (await get_orgs(api, ws)).data] == ["globex"]
    # Re-created under the same id, it starts empty.
    await add_orgs(api, ws, "acme")
    folders = await api.post(
        "/v2/organizations/folders/get", {"organizationId": "acme"}, headers=ws.key_headers
    )
    docs = await api.post(
        "/v2/organizations/documents/get", {"organizationId": "acme"}, headers=ws.key_headers
    )
    assert folders.data == []
    assert docs.data == []
    # The other organization kept its own.
    kept = await api.post(
        "/v2/organizations/documents/get", {"organizationId": "globex"}, headers=ws.key_headers
    )
    assert [d["id"] for d in kept.data] == ["d1"]


async def test_delete_of_a_missing_id_fails_as_internal_and_deletes_the_others(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    await add_orgs(api, ws, "acme")

    deleted = await api.post(
        "/v2/organizations/delete", {"organizationIds": ["ghost", "acme"]}, headers=ws.key_headers
    )

    error = assert_failure(deleted, 500, "INTERNAL")
    assert error["details"]["ghost"]["code"] == "not-found"
    assert error["details"]["acme"] == {
        "success": True,
        "id": "acme",
        "message": "Deleted Successfully",
    }
    assert (await get_orgs(api, ws)).data == []


# tenancy -----------------------------------------------------------------------------------------


async def test_another_workspaces_organizations_are_not_found(api: ApiClient) -> None:
    a = await api.create_workspace("a@example.com")
    b = await api.create_workspace("b@example.com")
    await add_orgs(api, a, "acme")

    listed = await get_orgs(api, b)
    by_id = await get_orgs(api, b, organizationIds=["acme"])
    updated = await api.post(
        "/v2/organizations/update",
        {"organizations": [{"organizationId": "acme", "organizationName": "Hijacked"}]},
        headers=b.key_headers,
    )
    deleted = await api.post(
        "/v2/organizations/delete", {"organizationIds": ["acme"]}, headers=b.key_headers
    )

    assert listed.data == []
    assert by_id.data == []
    assert assert_failure(updated, 500, "INTERNAL")["details"]["acme"]["code"] == "not-found"
    assert assert_failure(deleted, 500, "INTERNAL")["details"]["acme"]["code"] == "not-found"
    (org,) = (await get_orgs(api, a)).data
    assert org["organizationName"] == "ACME"
    # The same id is free in the other workspace.
    await add_orgs(api, b, "acme")
    assert [o["id"] for o in (await get_orgs(api, b)).data] == ["acme"]


async def test_organization_endpoints_need_api_key_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace()

    with_workspace_headers = await get_orgs_with(api, ws.workspace_headers)
    with_wrong_token = await get_orgs_with(
        api, {"x-redline-api-key": ws.api_key, "x-redline-auth-token": "wrong"}
    )

    assert_failure(with_workspace_headers, 400, "INVALID_ARGUMENT")
    assert_failure(with_wrong_token, 401, "UNAUTHENTICATED")


async def test_a_user_token_cannot_manage_organizations_folders_or_documents(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    await add_orgs(api, ws, "acme")
    minted = await api.post(
        "/v2/auth/generate_token",
        {"userId": "u1", "userProperties": {"name": "U"}},
        headers=ws.key_headers,
    )
    assert minted.status == 200, minted.body
    as_user = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": minted.data["token"]}

    for path, data in (
        ("/v2/organizations/get", {}),
        ("/v2/organizations/delete", {"organizationIds": ["acme"]}),
        (
            "/v2/organizations/folders/add",
            {"organizationId": "acme", "folders": [{"folderId": "f"}]},
        ),
        ("/v2/organizations/documents/get", {"organizationId": "acme"}),
    ):
        refused = await api.post(path, data, headers=as_user)
        assert_failure(refused, 403, "PERMISSION_DENIED")
    assert [o["id"] for o in (await get_orgs(api, ws)).data] == ["acme"]


async def get_orgs_with(api: ApiClient, headers: dict[str, str]) -> Response:
    return await api.post("/v2/organizations/get", {}, headers=headers)
