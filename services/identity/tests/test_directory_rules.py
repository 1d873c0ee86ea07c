"""Pure rules of organizations, folders and documents: effective access, access settings asked
for, folder depth, trees, duplicate ids, metadata size and the partial-failure envelope."""

from __future__ import annotations

import pytest

from redline.envelope.errors import Internal, InvalidArgument
from redline.identity.directory.folders.models import Folder
from redline.identity.directory.models import AccessResult, ItemResult
from redline.identity.directory.rules import (
    INHERIT,
    MAX_FOLDER_DEPTH,
    METADATA_MAX_BYTES,
    AccessSetting,
    build_tree,
    check_metadata,
    check_not_root,
    check_unique,
    depth_allows,
    effective_document_access,
    effective_folder_access,
    failed,
    folder_parent,
    raise_if_any_failed,
    raise_if_any_missing,
    resolve_access_setting,
    succeeded,
)

# effective access ------------------------------------------------------------------------------


def test_a_folder_that_inherits_takes_its_parents_effective_type() -> None:
    assert effective_folder_access(INHERIT, "restricted", "public") == "restricted"


def test_a_root_folder_that_inherits_takes_the_default() -> None:
    assert effective_folder_access(INHERIT, None, "organizationPrivate") == "organizationPrivate"


def test_a_folder_with_its_own_type_keeps_it_under_any_parent() -> None:
    own = AccessSetting("public", False)

    assert effective_folder_access(own, "restricted", "restricted") == "public"
    assert effective_folder_access(own, None, "restricted") == "public"


def test_a_document_takes_its_own_else_its_folders_else_the_default() -> None:
    assert effective_document_access("restricted", "public", "public") == "restricted"
    assert effective_document_access(None, "organizationPrivate", "public") == "organizationPrivate"
    assert effective_document_access(None, None, "restricted") == "restricted"


# access settings asked for ---------------------------------------------------------------------


def test_inheriting_wins_over_an_access_type_sent_with_it() -> None:
    assert resolve_access_setting("restricted", True, "public") == INHERIT
    assert resolve_access_setting(None, True, "public") == INHERIT


def test_an_access_type_alone_stops_inheritance() -> None:
    assert resolve_access_setting("restricted", None, "public") == AccessSetting(
        "restricted", False
    )
    assert resolve_access_setting("restricted", False, "public") == AccessSetting(
        "restricted", False
    )


def test_stopping_inheritance_alone_keeps_what_applies_now() -> None:
    assert resolve_access_setting(None, False, "organizationPrivate") == AccessSetting(
        "organizationPrivate", False
    )


def test_asking_for_neither_is_no_setting() -> None:
    assert resolve_access_setting(None, None, "public") is None


def test_folder_parent_maps_root_and_absence_to_none() -> None:
    assert folder_parent(None) is None
    assert folder_parent("root") is None
    assert folder_parent("f1") == "f1"


# depth -----------------------------------------------------------------------------------------


def test_depth_counts_the_folder_its_ancestors_and_its_subtree() -> None:
    assert depth_allows(MAX_FOLDER_DEPTH - 1, 0)
    assert not depth_allows(MAX_FOLDER_DEPTH, 0)
    assert depth_allows(0, MAX_FOLDER_DEPTH - 1)
    assert not depth_allows(1, MAX_FOLDER_DEPTH - 1)


# trees -----------------------------------------------------------------------------------------


def node(folder_id: str, parent: str = "root", created: int = 0) -> Folder:
    return Folder(
        folderId=folder_id,
        folderName=folder_id,
        organizationId="org",
        apiKey="key",
        parentFolderId=parent,
        ancestors=["root"],
        accessType="public",
        inheritAccessFromParent=True,
        metadata={},
        createdAt=created,
        lastUpdated=created,
    )


def shape(nodes: list[Folder] | None) -> dict[str, object]:
    return {n.folderId: shape(n.subFolders) for n in nodes or []}


def test_build_tree_nests_children_under_their_parents() -> None:
    tops = build_tree([node("c", "b"), node("a"), node("b", "a"), node("z")])

    assert shape(tops) == {"a": {"b": {"c": {}}}, "z": {}}


def test_build_tree_orders_siblings_oldest_first_then_by_id() -> None:
    tops = build_tree([node("y", created=2), node("x", created=2), node("w", created=1)])

    assert [n.folderId for n in tops] == ["w", "x", "y"]


def test_build_tree_returns_folders_whose_parent_is_not_among_them() -> None:
    # Asked for one folder: its own parent is not in the answer.
    tops = build_tree([node("b", "a"), node("c", "b")])

    assert shape(tops) == {"b": {"c": {}}}


def test_build_tree_leaves_subfolders_absent_on_leaves() -> None:
    (top,) = build_tree([node("a"), node("b", "a")])

    assert top.subFolders is not None
    assert top.subFolders[0].subFolders is None


# request checks --------------------------------------------------------------------------------


def test_check_unique_names_the_repeated_entry() -> None:
    check_unique(["a", "b"], "data.items[{}].id")
    with pytest.raises(InvalidArgument) as raised:
        check_unique(["a", "b", "c", "b"], "data.items[{}].id")

    assert raised.value.details is not None
    assert [i["path"] for i in raised.value.details["issues"]] == ["data.items[3].id"]


def test_check_metadata_limits_the_encoded_size() -> None:
    check_metadata(None, "data.metadata")
    check_metadata({"k": "x" * (METADATA_MAX_BYTES - 100)}, "data.metadata")
    with pytest.raises(InvalidArgument) as raised:
        check_metadata({"k": "x" * METADATA_MAX_BYTES}, "data.x[0].metadata")

    assert raised.value.details is not None
    assert raised.value.details["issues"][0]["path"] == "data.x[0].metadata"


def test_root_is_not_a_folder_id() -> None:
    check_not_root("rooted", "data.folderId")
    with pytest.raises(InvalidArgument):
        check_not_root("root", "data.folderId")


# partial failures ------------------------------------------------------------------------------


def test_all_succeeded_raises_nothing() -> None:
    raise_if_any_failed({"a": succeeded("a", "Added Successfully")}, "things")


def test_a_failure_raises_internal_with_the_whole_keyed_result() -> None:
    results = {
        "a": succeeded("a", "Added Successfully"),
        "b": failed("b", "Already there.", "already-exists"),
    }

    with pytest.raises(Internal) as raised:
        raise_if_any_failed(results, "things")

    assert raised.value.message == "1 of 2 things failed; the others succeeded."
    assert raised.value.details == {
        "a": {"success": True, "id": "a", "message": "Added Successfully"},
        "b": {"success": False, "id": "b", "message": "Already there.", "code": "already-exists"},
    }


def test_access_results_keep_a_null_access_type_in_details() -> None:
    results = {
        "f": AccessResult(success=False, accessType=None, message="Missing.", code="not-found")
    }

    with pytest.raises(Internal) as raised:
        raise_if_any_failed(results, "folders")

    assert raised.value.details == {
        "f": {"success": False, "accessType": None, "message": "Missing.", "code": "not-found"}
    }


def test_item_results_omit_code_on_success() -> None:
    assert succeeded("a", "ok") == ItemResult(success=True, id="a", message="ok")
    assert succeeded("a", "ok").code is None


def test_a_lookup_naming_missing_ids_fails_with_each_id_in_the_order_asked() -> None:
    listed = {"b": {"success": True, "id": "b"}}
    with pytest.raises(Internal) as raised:
        raise_if_any_missing(["c", "b", "elsewhere"], listed, {"b", "elsewhere"}, "docs", "Gone.")
    # "elsewhere" exists but the answer left it out (another folder): it is no failure.
    assert raised.value.details == {
        "c": {"success": False, "id": "c", "message": "Gone.", "code": "not-found"},
        "b": {"success": True, "id": "b"},
    }
    assert list(raised.value.details or {}) == ["c", "b"]
    raise_if_any_missing(["b"], listed, {"b"}, "docs", "Gone.")  # all exist: no error
