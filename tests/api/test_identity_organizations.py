"""Organizations: add, update and delete with everything in them; keyed results, partial
failures and validation."""

from __future__ import annotations

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.organizations_support import add_orgs, get_orgs

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
    assert set(globex) == {
        "id",
        "organizationName",
        "disabled",
        "metadata",
        "createdAt",
        "lastUpdated",
    }
    assert globex["disabled"] is False
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
