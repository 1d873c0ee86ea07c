"""Changing folders: renames, moves that recompute ancestors and inherited access for a whole
subtree, refused cycles, access changes with inheritance, and deletes that take subfolders and
documents along."""

from __future__ import annotations

from redline.testing.api import (
    ApiClient,
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

# update: rename, move -----------------------------------------------------------------------------


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


# access -------------------------------------------------------------------------------------------


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


# delete -------------------------------------------------------------------------------------------


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
