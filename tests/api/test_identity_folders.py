"""Folders: trees (ancestors, subFolders, maxDepth), moves that recompute ancestors and inherited
access for a whole subtree, refused cycles, access changes with inheritance, deletes that take
subfolders and documents along, and tenancy between workspaces."""

from __future__ import annotations

from typing import Any

from redline.testing.api import (
    ApiClient,
    Response,
    StartApi,
    Workspace,
    assert_failure,
    issue_paths,
)


def folder(folder_id: str, parent: str | None = None, **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"folderId": folder_id, "folderName": folder_id.upper(), **fields}
    if parent is not None:
        entry["parentFolderId"] = parent
    return entry


async def add_folders(
    api: ApiClient, ws: Workspace, *folders: dict[str, Any], org: str = "acme"
) -> Response:
    return await api.post(
        "/v2/organizations/folders/add",
        {"organizationId": org, "createOrganization": True, "folders": list(folders)},
        headers=ws.key_headers,
    )


async def get_tree(api: ApiClient, ws: Workspace, org: str = "acme", **data: Any) -> Response:
    return await api.post(
        "/v2/organizations/folders/get", {"organizationId": org, **data}, headers=ws.key_headers
    )


async def update_folders(
    api: ApiClient, ws: Workspace, *changes: dict[str, Any], org: str = "acme"
) -> Response:
    return await api.post(
        "/v2/organizations/folders/update",
        {"organizationId": org, "folders": list(changes)},
        headers=ws.key_headers,
    )


async def update_access(api: ApiClient, ws: Workspace, org: str = "acme", **data: Any) -> Response:
    return await api.post(
        "/v2/organizations/folders/access/update",
        {"organizationId": org, **data},
        headers=ws.key_headers,
    )


def shape(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """{folderId: {its subfolders' shape}}."""
    return {node["folderId"]: shape(node.get("subFolders", [])) for node in nodes}


def flat(nodes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for node in nodes:
        found[node["folderId"]] = node
        found.update(flat(node.get("subFolders", [])))
    return found


async def folders_by_id(api: ApiClient, ws: Workspace, org: str = "acme") -> dict[str, Any]:
    tree = await get_tree(api, ws, org)
    assert tree.status == 200, tree.body
    return flat(tree.data)


# add and get -------------------------------------------------------------------------------------


async def test_add_builds_a_tree_with_parents_added_earlier_in_the_same_request(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()

    added = await add_folders(
        api, ws, folder("a"), folder("b", "a"), folder("c", "b"), folder("d", "root")
    )

    assert added.status == 200, added.body
    assert added.result["message"] == "Folder(s) added successfully."
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


# update: rename, move ----------------------------------------------------------------------------


async def test_update_renames_and_merges_metadata(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a", metadata={"color": "red", "pinned": True}))

    updated = await update_folders(
        api, ws, {"folderId": "a", "folderName": "Alpha", "metadata": {"pinned": None, "n": 1}}
    )

    assert updated.status == 200, updated.body
    assert updated.data == {"a": {"success": True, "id": "a", "message": "Folder updated."}}
    a = (await folders_by_id(api, ws))["a"]
    assert a["folderName"] == "Alpha"
    assert a["metadata"] == {"color": "red", "n": 1}


async def test_move_recomputes_ancestors_and_inherited_access_for_the_whole_subtree(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    await add_folders(
        api,
        ws,
        folder("src"),
        folder("dst", accessType="restricted"),
        folder("m", "src"),
        folder("n", "m"),
        folder("o", "n", accessType="organizationPrivate"),
        folder("p", "o"),
    )
    docs = await api.post(
        "/v2/organizations/documents/add",
        {"organizationId": "acme", "folderId": "n", "documents": [{"documentId": "doc-in-n"}]},
        headers=ws.key_headers,
    )
    assert docs.status == 200, docs.body
    before = await folders_by_id(api, ws)
    assert [before[f]["accessType"] for f in "mnop"] == [
        "public",
        "public",
        "organizationPrivate",
        "organizationPrivate",
    ]

    moved = await update_folders(api, ws, {"folderId": "m", "parentFolderId": "dst"})

    assert moved.status == 200, moved.body
    tree = await get_tree(api, ws)
    assert shape(tree.data) == {"src": {}, "dst": {"m": {"n": {"o": {"p": {}}}}}}
    after = flat(tree.data)
    assert after["m"]["parentFolderId"] == "dst"
    assert after["m"]["ancestors"] == ["root", "dst"]
    assert after["n"]["ancestors"] == ["root", "dst", "m"]
    assert after["o"]["ancestors"] == ["root", "dst", "m", "n"]
    assert after["p"]["ancestors"] == ["root", "dst", "m", "n", "o"]
    # Those that inherit follow the new parent; a folder with its own type keeps it, and so do
    # the folders that inherit from it.
    assert [after[f]["accessType"] for f in "mnop"] == [
        "restricted",
        "restricted",
        "organizationPrivate",
        "organizationPrivate",
    ]
    doc = await api.post(
        "/v2/organizations/documents/get",
        {"organizationId": "acme", "documentIds": ["doc-in-n"]},
        headers=ws.key_headers,
    )
    assert doc.data[0]["accessType"] == "restricted"

    to_root = await update_folders(api, ws, {"folderId": "m", "parentFolderId": "root"})

    assert to_root.status == 200, to_root.body
    at_root = await folders_by_id(api, ws)
    assert at_root["m"]["parentFolderId"] == "root"
    assert at_root["m"]["ancestors"] == ["root"]
    assert at_root["p"]["ancestors"] == ["root", "m", "n", "o"]
    assert [at_root[f]["accessType"] for f in "mnop"] == [
        "public",
        "public",
        "organizationPrivate",
        "organizationPrivate",
    ]


async def test_moving_a_folder_into_itself_or_its_subfolders_is_refused(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a"), folder("b", "a"), folder("c", "b"), folder("x"))

    refused = await update_folders(
        api,
        ws,
        {"folderId": "a", "parentFolderId": "c"},
        {"folderId": "b", "parentFolderId": "b"},
        {"folderId": "x", "parentFolderId": "a", "folderName": "moved"},
    )

    error = assert_failure(refused, 500, "INTERNAL")
    assert error["details"]["a"]["code"] == "invalid-argument"
    assert error["details"]["b"]["code"] == "invalid-argument"
    assert error["details"]["x"] == {"success": True, "id": "x", "message": "Folder updated."}
    assert shape((await get_tree(api, ws)).data) == {"a": {"b": {"c": {}}, "x": {}}}


async def test_a_cycle_made_across_items_of_one_request_is_refused(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a"), folder("b"))

    refused = await update_folders(
        api, ws, {"folderId": "a", "parentFolderId": "b"}, {"folderId": "b", "parentFolderId": "a"}
    )

    error = assert_failure(refused, 500, "INTERNAL")
    assert error["details"]["a"]["success"] is True
    assert error["details"]["b"]["code"] == "invalid-argument"
    assert shape((await get_tree(api, ws)).data) == {"b": {"a": {}}}


async def test_a_refused_move_leaves_the_name_unchanged_too(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a"))

    refused = await update_folders(
        api, ws, {"folderId": "a", "folderName": "renamed", "parentFolderId": "nowhere"}
    )
    missing = await update_folders(api, ws, {"folderId": "ghost", "folderName": "x"})

    assert assert_failure(refused, 500, "INTERNAL")["details"]["a"]["code"] == "not-found"
    assert assert_failure(missing, 500, "INTERNAL")["details"]["ghost"]["code"] == "not-found"
    assert (await folders_by_id(api, ws))["a"]["folderName"] == "A"


async def test_folders_nest_at_most_fifty_deep(api: ApiClient) -> None:
    ws = await api.create_workspace()
    chain = [folder("f1")] + [folder(f"f{i}", f"f{i - 1}") for i in range(2, 52)]

    added = await add_folders(api, ws, *chain)

    error = assert_failure(added, 500, "INTERNAL")
    assert [f for f, r in error["details"].items() if not r["success"]] == ["f51"]
    assert error["details"]["f51"]["code"] == "invalid-argument"
    await add_folders(api, ws, folder("top"), folder("below", "top"))
    # Two levels put under the 50th would reach 52.
    moved = await update_folders(api, ws, {"folderId": "top", "parentFolderId": "f50"})
    assert assert_failure(moved, 500, "INTERNAL")["details"]["top"]["code"] == "invalid-argument"
    assert (await folders_by_id(api, ws))["top"]["parentFolderId"] == "root"


# access ------------------------------------------------------------------------------------------


async def test_access_update_flows_down_to_folders_that_inherit(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(
        api,
        ws,
        folder("a"),
        folder("b", "a"),
        folder("c", "b"),
        folder("d", "a", accessType="public"),
    )

    restricted = await update_access(api, ws, folderIds=["a"], accessType="restricted")

    assert restricted.status == 200, restricted.body
    assert restricted.result["message"] == "Updated access for folders successfully."
    assert restricted.data == {
        "a": {"success": True, "accessType": "restricted", "message": "Folder access type updated."}
    }
    found = await folders_by_id(api, ws)
    assert {f: found[f]["accessType"] for f in "abcd"} == {
        "a": "restricted",
        "b": "restricted",
        "c": "restricted",
        "d": "public",
    }

    # Stopping inheritance alone keeps what applies now as the folder's own type.
    frozen = await update_access(api, ws, folderIds=["b"], inheritFromParent=False)
    assert frozen.data == {
        "b": {"success": True, "accessType": "restricted", "message": "Folder access type updated."}
    }
    await update_access(api, ws, folderIds=["a"], accessType="organizationPrivate")
    found = await folders_by_id(api, ws)
    assert {f: found[f]["accessType"] for f in "abc"} == {
        "a": "organizationPrivate",
        "b": "restricted",
        "c": "restricted",
    }
    assert found["b"]["inheritAccessFromParent"] is False

    inherit = await update_access(
        api, ws, folderIds=["b"], accessType="public", inheritFromParent=True
    )
    assert inherit.data == {
        "b": {
            "success": True,
            "accessType": None,
            "message": "Folder access is inherited from its parent.",
            "inheritFromParent": True,
        }
    }
    found = await folders_by_id(api, ws)
    assert {f: found[f]["accessType"] for f in "bc"} == {
        "b": "organizationPrivate",
        "c": "organizationPrivate",
    }
    assert found["b"]["inheritAccessFromParent"] is True


async def test_a_root_folder_set_to_inherit_takes_the_default(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a", accessType="restricted"), folder("b", "a"))

    await update_access(api, ws, folderIds=["a"], inheritFromParent=True)

    found = await folders_by_id(api, ws)
    assert (found["a"]["accessType"], found["b"]["accessType"]) == ("public", "public")


async def test_access_update_needs_an_access_type_or_inheritance(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a"))

    neither = await update_access(api, ws, folderIds=["a"])
    unknown_type = await update_access(api, ws, folderIds=["a"], accessType="secret")
    no_ids = await update_access(api, ws, folderIds=[], accessType="public")

    assert issue_paths(assert_failure(neither, 400, "INVALID_ARGUMENT")) == ["data.accessType"]
    assert issue_paths(assert_failure(unknown_type, 400, "INVALID_ARGUMENT")) == ["data.accessType"]
    assert issue_paths(assert_failure(no_ids, 400, "INVALID_ARGUMENT")) == ["data.folderIds"]


async def test_access_update_of_a_missing_folder_fails_as_internal_and_updates_the_others(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a"))

    updated = await update_access(api, ws, folderIds=["ghost", "a"], accessType="restricted")

    error = assert_failure(updated, 500, "INTERNAL")
    assert error["details"]["ghost"] == {
        "success": False,
        "accessType": None,
        "message": "Folder does not exist.",
        "code": "not-found",
    }
    assert error["details"]["a"]["success"] is True
    assert (await folders_by_id(api, ws))["a"]["accessType"] == "restricted"


# delete ------------------------------------------------------------------------------------------


async def test_delete_takes_subfolders_and_their_documents_along(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(
        api, ws, folder("a"), folder("b", "a"), folder("c", "b"), folder("x", "a"), folder("z")
    )
    for folder_id, doc in (("b", "in-b"), ("c", "in-c"), ("x", "in-x"), ("root", "at-root")):
        added = await api.post(
            "/v2/organizations/documents/add",
            {"organizationId": "acme", "folderId": folder_id, "documents": [{"documentId": doc}]},
            headers=ws.key_headers,
        )
        assert added.status == 200, added.body

    deleted = await api.post(
        "/v2/organizations/folders/delete",
        {"organizationId": "acme", "folderId": "b"},
        headers=ws.key_headers,
    )

    assert deleted.status == 200, deleted.body
    assert deleted.result["message"] == "Folder deleted successfully."
    assert deleted.data is None
    assert shape((await get_tree(api, ws)).data) == {"a": {"x": {}}, "z": {}}
    docs = await api.post(
        "/v2/organizations/documents/get", {"organizationId": "acme"}, headers=ws.key_headers
    )
    assert sorted(d["id"] for d in docs.data) == ["at-root", "in-x"]
    # The ids are free again.
    again = await add_folders(api, ws, folder("b"), folder("c", "b"))
    assert again.status == 200, again.body


async def test_delete_of_a_missing_folder_or_the_root_is_refused(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, folder("a"))

    missing = await api.post(
        "/v2/organizations/folders/delete",
        {"organizationId": "acme", "folderId": "ghost"},
        headers=ws.key_headers,
    )
    root = await api.post(
        "/v2/organizations/folders/delete",
        {"organizationId": "acme", "folderId": "root"},
        headers=ws.key_headers,
    )

    assert_failure(missing, 404, "NOT_FOUND")
    assert issue_paths(assert_failure(root, 400, "INVALID_ARGUMENT")) == ["data.folderId"]
    assert shape((await get_tree(api, ws)).data) == {"a": {}}


# tenancy -----------------------------------------------------------------------------------------


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
