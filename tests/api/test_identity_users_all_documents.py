"""Users across documents: users/get with `allDocuments` (once each, or grouped by document id)
and users/update with `options.all` / `options.allDocuments`, as the official SDK sends them."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace, assert_failure, issue_paths
from tests.api.disable_support import disable_doc, disable_org
from tests.api.users_support import add, members


async def get(api: ApiClient, ws: Workspace, **data: Any) -> Response:
    return await api.post("/v2/users/get", data, headers=ws.key_headers)


async def update(api: ApiClient, ws: Workspace, **data: Any) -> Response:
    return await api.post("/v2/users/update", data, headers=ws.key_headers)


async def on_document(
    api: ApiClient, ws: Workspace, document: str, *users: dict[str, Any], org: str = "o"
) -> None:
    added = await add(
        api, ws, organizationId=org, documentId=document, createDocument=True, users=list(users)
    )
    assert added.status == 200, added.body


def roles(listed: Response) -> dict[str, list[tuple[str, str]]]:
    """{documentId: [(userId, accessRole)]} of a grouped answer."""
    return {
        document: [(u["userId"], u["accessRole"]) for u in users]
        for document, users in listed.data.items()
    }


# users/get with allDocuments ---------------------------------------------------------------------


async def test_all_documents_lists_document_users_once_or_grouped_by_document(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("alldocs@example.com")
    await add(
        api,
        ws,
        organizationId="o",
        users=[{"userId": "ada", "name": "Ada Lovelace"}, {"userId": "bob", "name": "Bob"}],
    )
    await on_document(api, ws, "d1", {"userId": "ada"})
    await on_document(
        api, ws, "d2", {"userId": "ada", "accessRole": "viewer"}, {"userId": "cy", "name": "Cy"}
    )

    once = await get(api, ws, organizationId="o", allDocuments=True)
    grouped = await get(api, ws, organizationId="o", allDocuments=True, groupByDocumentId=True)

    assert once.status == 200, once.body
    # Organization-level members without a document grant (bob) are not document users.
    assert once.data == [
        {"userId": "ada", "name": "Ada Lovelace", "email": "", "initial": "AL"},
        {"userId": "cy", "name": "Cy", "email": "", "initial": "C"},
    ]
    assert grouped.status == 200, grouped.body
    assert grouped.result["message"] == "User(s) retrieved successfully."
    assert roles(grouped) == {
        "d1": [("ada", "editor")],
        "d2": [("ada", "viewer"), ("cy", "editor")],
    }
    assert grouped.data["d1"][0]["name"] == "Ada Lovelace"


async def test_all_documents_narrows_like_members_and_shows_involved_documents(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("alldocsnarrow@example.com")
    await on_document(api, ws, "d1", {"userId": "ada", "name": "Ada"}, {"userId": "bob"})
    await on_document(api, ws, "d2", {"userId": "bob", "email": "bob@lovelace.example"})
    # Groups take members of the organization.
    await add(api, ws, organizationId="o", users=[{"userId": "ada"}])
    groups = await api.post(
        "/v2/organizations/usergroups/add",
        {"organizationId": "o", "organizationUserGroups": [{"groupId": "g", "groupName": "G"}]},
        headers=ws.key_headers,
    )
    assert groups.status == 200, groups.body
    joined = await api.post(
        "/v2/organizations/usergroups/users/add",
        {"organizationId": "o", "organizationUserGroupId": "g", "userIds": ["ada"]},
        headers=ws.key_headers,
    )
    assert joined.data["ada"]["success"], joined.body

    by_ids = await get(
        api, ws, organizationId="o", allDocuments=True, groupByDocumentId=True, userIds=["bob"]
    )
    by_group = await get(
        api, ws, organizationId="o", allDocuments=True, organizationUserGroupIds=["g"]
    )
    by_search = await get(
        api, ws, organizationId="o", allDocuments=True, groupByDocumentId=True, searchKey="LOVE"
    )
    involved = await get(
        api, ws, organizationId="o", allDocuments=True, includeInvolvedDocuments=True
    )

    assert roles(by_ids) == {"d1": [("bob", "editor")], "d2": [("bob", "editor")]}
    assert [u["userId"] for u in by_group.data] == ["ada"]
    assert roles(by_search) == {"d1": [("bob", "editor")], "d2": [("bob", "editor")]}
    assert {
        u["userId"]: [d["documentId"] for d in u["involvedDocuments"]] for u in involved.data
    } == {
        "ada": ["d1"],
        "bob": ["d1", "d2"],
    }


async def test_grouped_pages_count_document_user_pairs(api: ApiClient) -> None:
    ws = await api.create_workspace("alldocspages@example.com")
    for document in ("d1", "d2", "d3"):
        await on_document(api, ws, document, {"userId": "a"}, {"userId": "b"})

    pages: list[dict[str, list[str]]] = []
    token: str | None = None
    while True:
        data: dict[str, Any] = {
            "organizationId": "o",
            "allDocuments": True,
            "groupByDocumentId": True,
            "pageSize": 3,
        }
        if token is not None:
            data["pageToken"] = token
        page = await get(api, ws, **data)
        assert page.status == 200, page.body
        pages.append({d: [u["userId"] for u in users] for d, users in page.data.items()})
        token = page.result.get("nextPageToken")
        if token is None:
            break
        assert page.result["pageToken"] == token
        # A token of the grouped listing does not continue the ungrouped one.
        other = await get(api, ws, organizationId="o", allDocuments=True, pageToken=token)
        assert issue_paths(assert_failure(other, 400, "INVALID_ARGUMENT")) == ["data.pageToken"]

    # A document's users go on over the next page.
    assert pages == [{"d1": ["a", "b"], "d2": ["a"]}, {"d2": ["b"], "d3": ["a", "b"]}]
    first = await get(api, ws, organizationId="o", allDocuments=True, pageSize=1)
    assert [u["userId"] for u in first.data] == ["a"]
    rest = await get(
        api,
        ws,
        organizationId="o",
        allDocuments=True,
        pageSize=1,
        pageToken=first.result["nextPageToken"],
    )
    assert [u["userId"] for u in rest.data] == ["b"]
    assert "nextPageToken" not in rest.result


async def test_group_by_document_id_needs_all_documents_and_all_documents_one_level(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("alldocsrules@example.com")
    await on_document(api, ws, "d1", {"userId": "a"})

    alone = await get(api, ws, organizationId="o", groupByDocumentId=True)
    with_document = await get(api, ws, organizationId="o", documentId="d1", allDocuments=True)
    missing = await get(api, ws, organizationId="nope", allDocuments=True)

    assert issue_paths(assert_failure(alone, 400, "INVALID_ARGUMENT")) == ["data.groupByDocumentId"]
    assert issue_paths(assert_failure(with_document, 400, "INVALID_ARGUMENT")) == [
        "data.allDocuments"
    ]
    assert_failure(missing, 404, "NOT_FOUND")
    # Asked for nothing: an empty object, still grouped.
    empty = await get(
        api, ws, organizationId="o", allDocuments=True, groupByDocumentId=True, userIds=["z"]
    )
    assert (empty.status, empty.data) == (200, {})


# users/update with options -----------------------------------------------------------------------


async def test_update_with_all_changes_every_grant_in_every_organization(api: ApiClient) -> None:
    ws = await api.create_workspace("updateall@example.com")
    for org in ("o", "p", "q"):
        await add(api, ws, organizationId=org, users=[{"userId": "ada"}])
    await on_document(api, ws, "d1", {"userId": "ada"})
    folder = await add(
        api, ws, organizationId="o", folderId="f1", createFolder=True, users=[{"userId": "ada"}]
    )
    assert folder.status == 200, folder.body
    await disable_org(api, ws, "q")

    updated = await update(
        api,
        ws,
        users=[{"userId": "ada", "name": "Ada L", "accessRole": "viewer"}, {"userId": "ghost"}],
        options={"all": True},
    )

    assert updated.status == 200, updated.body
    assert updated.data == {
        "ada": {"success": True, "id": "ada", "message": "User updated."},
        "ghost": {"success": False, "id": "ghost", "message": "User does not exist."},
    }
    levels: list[dict[str, Any]] = [
        {"organizationId": "o"},
        {"organizationId": "o", "documentId": "d1"},
        {"organizationId": "o", "folderId": "f1"},
        {"organizationId": "p"},
    ]
    for level in levels:
        listed = await members(api, ws, **level)
        assert (listed["ada"]["accessRole"], listed["ada"]["name"]) == ("viewer", "Ada L"), level
    # A disabled organization's grants keep their role.
    assert (await members(api, ws, organizationId="q"))["ada"]["accessRole"] == "editor"


async def test_update_with_all_in_one_organization_leaves_the_others(api: ApiClient) -> None:
    ws = await api.create_workspace("updateallorg@example.com")
    for org in ("o", "p"):
        await add(api, ws, organizationId=org, users=[{"userId": "ada"}])
    await on_document(api, ws, "d1", {"userId": "ada"})

    updated = await update(
        api,
        ws,
        organizationId="o",
        users=[{"userId": "ada", "accessRole": "viewer"}],
        options={"all": True, "allDocuments": True},
    )

    assert updated.status == 200, updated.body
    assert (await members(api, ws, organizationId="o"))["ada"]["accessRole"] == "viewer"
    on_d1 = await members(api, ws, organizationId="o", documentId="d1")
    assert on_d1["ada"]["accessRole"] == "viewer"
    assert (await members(api, ws, organizationId="p"))["ada"]["accessRole"] == "editor"


async def test_update_with_all_documents_changes_document_grants_only(api: ApiClient) -> None:
    ws = await api.create_workspace("updatealldocs@example.com")
    await add(api, ws, organizationId="o", users=[{"userId": "ada"}, {"userId": "bob"}])
    for document in ("d1", "d2", "d3"):
        await on_document(api, ws, document, {"userId": "ada"})
    await disable_doc(api, ws, "d3", org="o")

    updated = await update(
        api,
        ws,
        organizationId="o",
        users=[{"userId": "ada", "accessRole": "viewer"}, {"userId": "bob", "name": "Bob"}],
        options={"allDocuments": True},
    )

    assert updated.status == 200, updated.body
    # bob is a member of the organization but of no document.
    assert [updated.data[u]["success"] for u in ("ada", "bob")] == [True, False]
    grouped = await get(api, ws, organizationId="o", allDocuments=True, groupByDocumentId=True)
    assert roles(grouped) == {
        "d1": [("ada", "viewer")],
        "d2": [("ada", "viewer")],
        "d3": [("ada", "editor")],  # disabled: unchanged
    }
    organization = await members(api, ws, organizationId="o")
    assert organization["ada"]["accessRole"] == "editor"
    assert organization["bob"]["name"] == ""


async def test_update_options_are_checked(api: ApiClient) -> None:
    ws = await api.create_workspace("updateoptions@example.com")
    await on_document(api, ws, "d1", {"userId": "ada"})
    users = [{"userId": "ada"}]

    no_org = await update(api, ws, users=users)
    no_org_documents = await update(api, ws, users=users, options={"allDocuments": True})
    with_document = await update(
        api, ws, organizationId="o", documentId="d1", users=users, options={"all": True}
    )
    unknown = await update(api, ws, organizationId="o", users=users, options={"every": True})
    missing_org = await update(
        api, ws, organizationId="nope", users=users, options={"allDocuments": True}
    )
    plain = await update(api, ws, organizationId="o", users=users, options={"all": False})

    for refused, path in [
        (no_org, "data.organizationId"),
        (no_org_documents, "data.organizationId"),
        (with_document, "data.options"),
        (unknown, "data.options.every"),
    ]:
        assert issue_paths(assert_failure(refused, 400, "INVALID_ARGUMENT")) == [path]
    assert_failure(missing_org, 404, "NOT_FOUND")
    # Both options false: one level, the organization, where ada is no member.
    assert plain.status == 200, plain.body
    assert plain.data["ada"]["success"] is False
