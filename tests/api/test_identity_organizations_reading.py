"""Organizations: get (paged, by ids, tokens of another workspace), tenancy between workspaces
and the credentials the endpoints need."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.organizations_support import add_orgs, get_orgs, get_orgs_with

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
