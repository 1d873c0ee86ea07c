"""Folders: adding and reading trees (ancestors, subFolders, maxDepth), access types on add and
inheritance, and tenancy between workspaces."""

from __future__ import annotations

from redline.testing.api import (
    ApiClient,
    StartApi,
    assert_failure,
    issue_paths,
)
from tests.api.folders_support import (
    add_folders,
    flat,
    folder,
    folders_by_id,
    get_tree,
    shape,
    update_access,
    update_folders,
)

# add and get --------------------------------------------------------------------------------------


async def test_add_builds_a_tree_with_parents_added_earlier_in_the_same_request(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()

    added = await add_folders(
        api, ws, folder("a"), folder("b", "a"), folder("c", "b"), folder("d", "root")
    )

    assert added.status == 200, added.body
    assert added.result["message"] == "Folder created successfully."
    assert added.data == {
        name: {"success": True, "id": name, "message": "Folder added."} for name in "abcd"
    }
    tree = await get_tree(api, ws)
    assert tree.result["message"] == "Folder(s) retrieved successfully."
    assert shape(tree.data) == {"a": {"b": {"c": {}}}, "d": {}}
    c = flat(tree.data)["c"]
    assert set(c) == {
        "folderId",
        "folderName",
        "organizationId",
        "apiKey",
        "parentFolderId",
        "ancestors",
        "accessType",
        "inheritAccessFromParent",
        "metadata",
        "createdAt",
        "lastUpdated",
    }
    assert c["folderName"] == "C"
    assert c["organizationId"] == "acme"
    assert c["apiKey"] == ws.api_key
    assert c["parentFolderId"] == "b"
    assert c["ancestors"] == ["root", "a", "b"]
    assert c["accessType"] == "public"
    assert c["inheritAccessFromParent"] is True
    a = flat(tree.data)["a"]
    assert a["parentFolderId"] == "root"
    assert a["ancestors"] == ["root"]


async def test_add_with_a_missing_parent_fails_as_internal_and_adds_the_others(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()

    added = await add_folders(api, ws, folder("x", "nowhere"), folder("y"))

    error = assert_failure(added, 500, "INTERNAL")
    assert error["details"] == {
        "x": {
            "success": False,
            "id": "x",
            "message": "Parent folder does not exist.",
            "code": "not-found",
        },
        "y": {"success": True, "id": "y", "message": "Folder added."},
    }
    assert shape((await get_tree(api, ws)).data) == {"y": {}}


async def test_add_of_an_existing_folder_is_already_exists(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a"))

    again = await add_folders(api, ws, folder("a", metadata={"v": 2}), folder("b", "a"))

    error = assert_failure(again, 500, "INTERNAL")
    assert error["details"]["a"]["code"] == "already-exists"
    assert error["details"]["b"]["success"] is True
    assert shape((await get_tree(api, ws)).data) == {"a": {"b": {}}}
    assert (await folders_by_id(api, ws))["a"]["metadata"] == {}


async def test_add_into_a_missing_organization_is_not_found_unless_asked_to_create_it(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()

    refused = await api.post(
        "/v2/organizations/folders/add",
        {"organizationId": "newco", "folders": [folder("a")]},
        headers=ws.key_headers,
    )
    created = await api.post(
        "/v2/organizations/folders/add",
        {"organizationId": "newco", "createOrganization": True, "folders": [folder("a")]},
        headers=ws.key_headers,
    )

    assert_failure(refused, 404, "NOT_FOUND")
    assert created.status == 200, created.body
    orgs = await api.post("/v2/organizations/get", {}, headers=ws.key_headers)
    assert [o["id"] for o in orgs.data] == ["newco"]


async def test_root_names_the_organizations_root_not_a_folder(api: ApiClient) -> None:
    ws = await api.create_workspace()

    added = await add_folders(api, ws, folder("a"), folder("root"))

    assert issue_paths(assert_failure(added, 400, "INVALID_ARGUMENT")) == [
        "data.folders[1].folderId"
    ]


async def test_get_one_folder_down_to_max_depth(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(
        api, ws, folder("a"), folder("b", "a"), folder("c", "b"), folder("d", "c"), folder("z")
    )

    one_level = await get_tree(api, ws, folderId="b", maxDepth=1)
    none_below = await get_tree(api, ws, folderId="b", maxDepth=0)
    everything = await get_tree(api, ws, folderId="b")
    roots_only = await get_tree(api, ws, maxDepth=0)
    two_levels = await get_tree(api, ws, maxDepth=1)

    assert shape(one_level.data) == {"b": {"c": {}}}
    assert shape(none_below.data) == {"b": {}}
    assert "subFolders" not in none_below.data[0]
    assert shape(everything.data) == {"b": {"c": {"d": {}}}}
    assert flat(everything.data)["d"]["ancestors"] == ["root", "a", "b", "c"]
    assert shape(roots_only.data) == {"a": {}, "z": {}}
    assert shape(two_levels.data) == {"a": {"b": {}}, "z": {}}


async def test_root_folders_only_and_in_pages(api: ApiClient) -> None:
    # The official SDK's listing: rootFoldersOnly, and pages of root folders with their subtrees.
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a"), folder("b", "a"), folder("m"), folder("z"))

    roots = await get_tree(api, ws, rootFoldersOnly=True)
    first = await get_tree(api, ws, pageSize=2)
    second = await get_tree(api, ws, pageSize=2, pageToken=first.result["nextPageToken"])
    mixed = await get_tree(api, ws, folderId="a", rootFoldersOnly=True)

    assert shape(roots.data) == {"a": {}, "m": {}, "z": {}}
    assert shape(first.data) == {"a": {"b": {}}, "m": {}}
    assert first.result["pageToken"] == first.result["nextPageToken"]
    assert shape(second.data) == {"z": {}}
    assert "nextPageToken" not in second.result
    assert issue_paths(assert_failure(mixed, 400, "INVALID_ARGUMENT")) == ["data.folderId"]


async def test_get_of_a_missing_folder_or_organization_is_not_found(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a"))

    assert_failure(await get_tree(api, ws, folderId="nope"), 404, "NOT_FOUND")
    assert_failure(await get_tree(api, ws, org="nobody"), 404, "NOT_FOUND")
    too_deep = await get_tree(api, ws, maxDepth=101)
    assert issue_paths(assert_failure(too_deep, 400, "INVALID_ARGUMENT")) == ["data.maxDepth"]


async def test_access_type_on_add_applies_and_children_inherit_it(api: ApiClient) -> None:
    ws = await api.create_workspace()

    added = await add_folders(
        api,
        ws,
        folder("a", accessType="restricted"),
        folder("b", "a"),
        folder("c", "a", inheritFromParent=False),
        folder("d", "a", accessType="public", inheritFromParent=True),
    )

    assert added.status == 200, added.body
    found = await folders_by_id(api, ws)
    assert (found["a"]["accessType"], found["a"]["inheritAccessFromParent"]) == (
        "restricted",
        False,
    )
    assert (found["b"]["accessType"], found["b"]["inheritAccessFromParent"]) == ("restricted", True)
    # Not inheriting, without a type of its own: it keeps what applied when it was added.
    assert (found["c"]["accessType"], found["c"]["inheritAccessFromParent"]) == (
        "restricted",
        False,
    )
    # Inheriting wins over a type sent with it.
    assert (found["d"]["accessType"], found["d"]["inheritAccessFromParent"]) == ("restricted", True)


async def test_root_folders_that_inherit_take_the_default_access_type(
    start_api: StartApi,
) -> None:
    api = await start_api(default_access_type="organizationPrivate")
    ws = await api.create_workspace()

    await add_folders(api, ws, folder("a"), folder("b", "a"), folder("c", inheritFromParent=True))

    found = await folders_by_id(api, ws)
    assert {f: found[f]["accessType"] for f in "abc"} == {
        "a": "organizationPrivate",
        "b": "organizationPrivate",
        "c": "organizationPrivate",
    }


async def test_a_changed_default_reaches_existing_folders_when_identity_starts(
    start_api: StartApi,
) -> None:
    before = await start_api()
    ws = await before.create_workspace()
    await add_folders(before, ws, folder("a"), folder("b", "a"), folder("own", accessType="public"))

    # The same database, served again with another default.
    after = await start_api(default_access_type="restricted")

    found = await folders_by_id(after, ws)
    assert {f: found[f]["accessType"] for f in ("a", "b", "own")} == {
        "a": "restricted",
        "b": "restricted",
        "own": "public",
    }


# tenancy ------------------------------------------------------------------------------------------


async def test_another_workspaces_folders_are_not_found(api: ApiClient) -> None:
    a = await api.create_workspace("a@example.com")
    b = await api.create_workspace("b@example.com")
    await add_folders(api, a, folder("f1"), folder("f2", "f1"))

    tree = await get_tree(api, b)
    update = await update_folders(api, b, {"folderId": "f1", "folderName": "x"})
    access = await update_access(api, b, folderIds=["f1"], accessType="restricted")
    delete = await api.post(
        "/v2/organizations/folders/delete",
        {"organizationId": "acme", "folderId": "f1"},
        headers=b.key_headers,
    )

    for response in (tree, update, access, delete):
        assert_failure(response, 404, "NOT_FOUND")
    # With an organization of the same id of its own, the other workspace still sees none of them.
    await add_folders(api, b, folder("mine"))
    assert_failure(await get_tree(api, b, folderId="f1"), 404, "NOT_FOUND")
    moved = await update_folders(api, b, {"folderId": "mine", "parentFolderId": "f1"})
    assert assert_failure(moved, 500, "INTERNAL")["details"]["mine"]["code"] == "not-found"
    assert shape((await get_tree(api, b)).data) == {"mine": {}}
    assert shape((await get_tree(api, a)).data) == {"f1": {"f2": {}}}
    assert (await folders_by_id(api, a))["f1"]["accessType"] == "public"
