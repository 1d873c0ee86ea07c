"""Users: listing members (paging, filters, expired grants) and tenancy between workspaces;
user tokens refused."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.users_support import add, members

# listing -----------------------------------------------------------------------------------------


async def test_get_pages_through_members_and_filters_by_user_ids(api: ApiClient) -> None:
    ws = await api.create_workspace("paging@example.com")
    await add(api, ws, organizationId="o", users=[{"userId": f"u{i}"} for i in range(5)])

    seen: list[str] = []
    token: str | None = None
    pages = 0
    while True:
        data: dict[str, Any] = {"organizationId": "o", "pageSize": 2}
        if token is not None:
            data["pageToken"] = token
        page = await api.post("/v2/users/get", data, headers=ws.key_headers)
        assert page.status == 200, page.body
        seen += [user["userId"] for user in page.data]
        pages += 1
        token = page.result.get("nextPageToken")
        if token is None:
            assert "pageToken" not in page.result
            break
        assert page.result["pageToken"] == token
    assert seen == ["u0", "u1", "u2", "u3", "u4"]
    assert pages == 3
    # Pages of up to 1000, as the hosted product's.
    whole = await api.post(
        "/v2/users/get", {"organizationId": "o", "pageSize": 1000}, headers=ws.key_headers
    )
    too_many = await api.post(
        "/v2/users/get", {"organizationId": "o", "pageSize": 1001}, headers=ws.key_headers
    )
    assert [user["userId"] for user in whole.data] == seen
    assert issue_paths(assert_failure(too_many, 400, "INVALID_ARGUMENT")) == ["data.pageSize"]

    filtered = await members(api, ws, organizationId="o", userIds=["u3", "u1", "ghost"])
    assert set(filtered) == {"u1", "u3"}


async def test_get_searches_names_and_emails_and_shows_involved_documents(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("search@example.com")
    people = [
        {"userId": "ada", "name": "Ada Lovelace", "email": "ada@analytical.example"},
        {"userId": "bob", "name": "Bob", "email": "bob@LOVELACE.example"},
        {"userId": "cy", "name": "Cy", "email": "cy@example.com"},
    ]
    await add(api, ws, organizationId="o", users=people)
    for document in ("d1", "d2"):
        await add(
            api,
            ws,
            organizationId="o",
            documentId=document,
            createDocument=True,
            users=[{"userId": "ada"}],
        )

    found = await members(api, ws, organizationId="o", searchKey="lovelace")
    involved = await members(
        api,
        ws,
        organizationId="o",
        userIds=["ada", "cy"],
        includeInvolvedDocuments=True,
        includeInvolvedDocumentsCount=True,
    )

    assert set(found) == {"ada", "bob"}
    assert [d["documentId"] for d in involved["ada"]["involvedDocuments"]] == ["d1", "d2"]
    assert involved["ada"]["involvedDocumentsCount"] == 2
    assert (involved["cy"]["involvedDocuments"], involved["cy"]["involvedDocumentsCount"]) == (
        [],
        0,
    )
    plain = await members(api, ws, organizationId="o", userIds=["ada"])
    assert "involvedDocuments" not in plain["ada"]


async def test_get_limits_user_ids_and_rejects_forged_page_tokens(api: ApiClient) -> None:
    ws = await api.create_workspace("getlimits@example.com")
    await add(api, ws, organizationId="o", users=[{"userId": "u1"}])

    too_many = await api.post(
        "/v2/users/get",
        {"organizationId": "o", "userIds": [f"u{i}" for i in range(31)]},
        headers=ws.key_headers,
    )
    assert issue_paths(assert_failure(too_many, 400, "INVALID_ARGUMENT")) == ["data.userIds"]
    forged = await api.post(
        "/v2/users/get", {"organizationId": "o", "pageToken": "abc"}, headers=ws.key_headers
    )
    assert issue_paths(assert_failure(forged, 400, "INVALID_ARGUMENT")) == ["data.pageToken"]


async def test_get_of_a_missing_organization_is_not_found(api: ApiClient) -> None:
    ws = await api.create_workspace("getmissing@example.com")

    response = await api.post("/v2/users/get", {"organizationId": "nope"}, headers=ws.key_headers)

    assert_failure(response, 404, "NOT_FOUND")


async def test_expired_grants_do_not_make_members(api: ApiClient) -> None:
    ws = await api.create_workspace("expiredmember@example.com")
    granted = await api.post(
        "/v2/auth/permissions/add",
        {
            "user": {"userId": "u1"},
            "permissions": {
                "resources": [{"type": "organization", "id": "o", "expiresAt": 1_000_000}]
            },
        },
        headers=ws.key_headers,
    )
    assert granted.status == 200, granted.body

    assert await members(api, ws, organizationId="o") == {}
    updated = await api.post(
        "/v2/users/update",
        {"organizationId": "o", "users": [{"userId": "u1", "accessRole": "viewer"}]},
        headers=ws.key_headers,
    )
    assert updated.data["u1"]["success"] is False


# tenancy and callers -----------------------------------------------------------------------------


async def test_another_workspace_cannot_see_or_touch_the_users(api: ApiClient) -> None:
    owner = await api.create_workspace("owner@example.com")
    intruder = await api.create_workspace("intruder@example.com")
    await add(api, owner, organizationId="shared-name", users=[{"userId": "u1", "name": "Ann"}])

    listed = await api.post(
        "/v2/users/get", {"organizationId": "shared-name"}, headers=intruder.key_headers
    )
    assert_failure(listed, 404, "NOT_FOUND")
    deleted = await api.post(
        "/v2/users/delete",
        {"organizationId": "shared-name", "userIds": ["u1"]},
        headers=intruder.key_headers,
    )
    assert_failure(deleted, 404, "NOT_FOUND")
    # The intruder's own organization of the same name is a different one.
    await add(api, intruder, organizationId="shared-name", users=[{"userId": "u9"}])
    assert set(await members(api, intruder, organizationId="shared-name")) == {"u9"}
    assert (await members(api, owner, organizationId="shared-name"))["u1"]["name"] == "Ann"
    assert set(await members(api, owner, organizationId="shared-name")) == {"u1"}


async def test_user_endpoints_refuse_user_tokens(api: ApiClient) -> None:
    ws = await api.create_workspace("usertokencaller@example.com")
    generated = await api.post("/v2/auth/generate_token", {"userId": "u1"}, headers=ws.key_headers)
    assert generated.status == 200, generated.body
    as_user = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": generated.data["token"]}

    for path, data in [
        ("/v2/users/add", {"organizationId": "o", "users": [{"userId": "u1"}]}),
        ("/v2/users/update", {"organizationId": "o", "users": [{"userId": "u1"}]}),
        ("/v2/users/delete", {"organizationId": "o", "userIds": ["u1"]}),
        ("/v2/users/get", {"organizationId": "o"}),
    ]:
        response = await api.post(path, data, headers=as_user)
        assert_failure(response, 403, "PERMISSION_DENIED")
    assert_failure(
        await api.post("/v2/users/get", {"organizationId": "o"}, headers=ws.key_headers),
        404,
        "NOT_FOUND",
    )
