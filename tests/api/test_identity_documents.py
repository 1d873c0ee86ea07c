"""Documents: add (with create flags), update, get (paged, by folder), effective access types,
and tenancy between workspaces."""

from __future__ import annotations

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.documents_support import (
    DOCUMENT_FIELDS,
    add_docs,
    add_folders,
    docs_by_id,
    get_docs,
)

# add, get, effective access -----------------------------------------------------------------------


async def test_documents_carry_their_own_else_their_folders_else_the_default_access_type(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, {"folderId": "vault", "accessType": "restricted"})

    at_root = await add_docs(
        api,
        ws,
        {"documentId": "plain", "documentName": "Plain", "metadata": {"kind": "spec"}},
        {"documentId": "own", "accessType": "organizationPrivate"},
    )
    in_folder = await add_docs(
        api,
        ws,
        "in-vault",
        {"documentId": "own-in-vault", "accessType": "public"},
        folderId="vault",
    )

    assert at_root.status == 200, at_root.body
    assert at_root.result["message"] == "Document(s) added successfully."
    assert at_root.data == {
        "plain": {"success": True, "id": "plain", "message": "Added Successfully"},
        "own": {"success": True, "id": "own", "message": "Added Successfully"},
    }
    assert in_folder.status == 200, in_folder.body
    found = await docs_by_id(api, ws)
    assert set(found["plain"]) == DOCUMENT_FIELDS
    assert found["plain"]["documentName"] == "Plain"
    assert found["plain"]["organizationId"] == "acme"
    assert found["plain"]["folderId"] == "root"
    assert found["plain"]["metadata"] == {"kind": "spec"}
    assert found["in-vault"]["folderId"] == "vault"
    assert {d: found[d]["accessType"] for d in found} == {
        "plain": "public",
        "own": "organizationPrivate",
        "in-vault": "restricted",
        "own-in-vault": "public",
    }


async def test_add_with_some_existing_ids_fails_as_internal_and_keeps_the_new_ones(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    await add_docs(api, ws, "d1")

    again = await add_docs(api, ws, {"documentId": "d1", "documentName": "dup"}, "d2")

    error = assert_failure(again, 500, "INTERNAL")
    assert error["details"] == {
        "d1": {
            "success": False,
            "id": "d1",
            "message": "Document already exists.",
            "code": "already-exists",
        },
        "d2": {"success": True, "id": "d2", "message": "Added Successfully"},
    }
    found = await docs_by_id(api, ws)
    assert sorted(found) == ["d1", "d2"]
    assert found["d1"]["documentName"] == ""


async def test_add_creates_the_organization_and_folder_only_when_asked(api: ApiClient) -> None:
    ws = await api.create_workspace()

    no_org = await api.post(
        "/v2/organizations/documents/add",
        {"organizationId": "newco", "documents": [{"documentId": "d"}]},
        headers=ws.key_headers,
    )
    no_folder = await add_docs(api, ws, "d", org="newco", folderId="inbox")
    created = await add_docs(api, ws, "d", org="newco", folderId="inbox", createFolder=True)

    assert_failure(no_org, 404, "NOT_FOUND")
    assert_failure(no_folder, 404, "NOT_FOUND")
    assert created.status == 200, created.body
    tree = await api.post(
        "/v2/organizations/folders/get", {"organizationId": "newco"}, headers=ws.key_headers
    )
    assert [(f["folderId"], f["parentFolderId"]) for f in tree.data] == [("inbox", "root")]
    assert (await docs_by_id(api, ws, "newco"))["d"]["folderId"] == "inbox"


async def test_add_validation_names_the_field_path(api: ApiClient) -> None:
    ws = await api.create_workspace()

    bad_type = await add_docs(api, ws, "ok", {"documentId": "bad", "accessType": "secret"})
    duplicate = await add_docs(api, ws, "same", "same")

    assert issue_paths(assert_failure(bad_type, 400, "INVALID_ARGUMENT")) == [
        "data.documents[1].accessType"
    ]
    assert issue_paths(assert_failure(duplicate, 400, "INVALID_ARGUMENT")) == [
        "data.documents[1].documentId"
    ]


# update -------------------------------------------------------------------------------------------


async def test_update_renames_and_merges_metadata_and_reports_missing_ids(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_docs(api, ws, {"documentId": "d1", "metadata": {"a": 1, "b": 2}})

    updated = await api.post(
        "/v2/organizations/documents/update",
        {
            "organizationId": "acme",
            "documents": [
                {"documentId": "d1", "documentName": "Renamed", "metadata": {"b": None, "c": 3}},
                {"documentId": "ghost", "documentName": "x"},
            ],
        },
        headers=ws.key_headers,
    )

    error = assert_failure(updated, 500, "INTERNAL")
    assert error["details"]["d1"] == {
        "success": True,
        "id": "d1",
        "message": "Updated Successfully",
    }
    assert error["details"]["ghost"]["code"] == "not-found"
    d1 = (await docs_by_id(api, ws))["d1"]
    assert d1["documentName"] == "Renamed"
    assert d1["metadata"] == {"a": 1, "c": 3}


async def test_update_without_merge_replaces_the_metadata_whole(api: ApiClient) -> None:
    # The official SDK's `merge: false`: the metadata given stands for the stored one.
    ws = await api.create_workspace("replace-metadata@example.com")
    await add_docs(api, ws, {"documentId": "d1", "metadata": {"a": 1, "b": 2}})

    async def update(merge: bool, metadata: dict[str, object]) -> None:
        body = {
            "organizationId": "acme",
            "merge": merge,
            "documents": [{"documentId": "d1", "metadata": metadata}],
        }
        answer = await api.post("/v2/organizations/documents/update", body, headers=ws.key_headers)
        assert answer.status == 200, answer.body

    await update(True, {"c": 3})
    assert (await docs_by_id(api, ws))["d1"]["metadata"] == {"a": 1, "b": 2, "c": 3}
    await update(False, {"z": 9, "gone": None})
    assert (await docs_by_id(api, ws))["d1"]["metadata"] == {"z": 9}


# get ----------------------------------------------------------------------------------------------


async def test_get_pages_with_the_token_under_both_names(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_docs(api, ws, "d5", "d3", "d1", "d4", "d2")

    seen: list[str] = []
    token = None
    while True:
        page = await get_docs(api, ws, pageSize=2, **({"pageToken": token} if token else {}))
        assert page.status == 200, page.body
        seen += [d["id"] for d in page.data]
        token = page.result.get("nextPageToken")
        if token is None:
            assert "pageToken" not in page.result
            break
        assert page.result["pageToken"] == token

    assert seen == ["d1", "d2", "d3", "d4", "d5"]


async def test_get_filters_by_folder_by_ids_and_by_the_root(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, {"folderId": "f"}, {"folderId": "sub", "parentFolderId": "f"})
    await add_docs(api, ws, "loose")
    await add_docs(api, ws, "f1", "f2", folderId="f")
    await add_docs(api, ws, "deeper", folderId="sub")

    in_f = await get_docs(api, ws, folderId="f")
    at_root = await get_docs(api, ws, folderId="root")
    by_ids = await get_docs(api, ws, documentIds=["loose", "f2"])
    with_missing = await get_docs(api, ws, documentIds=["nope", "f2", "loose"])
    in_f_by_ids = await get_docs(api, ws, folderId="f", documentIds=["f2", "loose"])
    missing_folder = await get_docs(api, ws, folderId="ghost")

    assert [d["id"] for d in in_f.data] == ["f1", "f2"]
    assert [d["id"] for d in at_root.data] == ["loose"]
    assert [d["id"] for d in by_ids.data] == ["f2", "loose"]
    # An id that names no document is the reference's partial failure: each id asked, in order.
    details = assert_failure(with_missing, 500, "INTERNAL")["details"]
    assert list(details) == ["nope", "f2", "loose"]
    assert (details["nope"]["success"], details["nope"]["code"]) == (False, "not-found")
    assert (details["f2"]["success"], details["f2"]["folderId"]) == (True, "f")
    assert [d["id"] for d in in_f_by_ids.data] == ["f2"]
    assert_failure(missing_folder, 404, "NOT_FOUND")


async def test_get_filters_by_metadata_as_the_count_does(api: ApiClient) -> None:
    ws = await api.create_workspace("get-filters@example.com")
    await add_docs(
        api,
        ws,
        {"documentId": "a", "metadata": {"team": "legal", "tags": ["q3"], "pages": 12}},
        {"documentId": "b", "metadata": {"team": "legal", "pages": 3}},
        {"documentId": "c", "metadata": {"team": "sales", "tags": ["q3"]}},
    )

    async def ids(*filters: dict[str, object], **extra: object) -> list[str]:
        found = await api.post(
            "/v2/organizations/documents/get",
            {"organizationId": "acme", "filters": list(filters), **extra},
            headers=ws.key_headers,
        )
        assert found.status == 200, found.body
        return [d["id"] for d in found.data]

    legal = {"key": "team", "operator": "==", "value": "legal"}
    assert await ids(legal) == ["a", "b"]
    assert await ids(legal, {"key": "metadata.pages", "operator": ">", "value": 5}) == ["a"]
    assert await ids({"key": "tags", "operator": "array-contains", "value": "q3"}) == ["a", "c"]
    assert await ids(legal, orderByCommentViews=True) == ["a", "b"]
    bad = await api.post(
        "/v2/organizations/documents/get",
        {"organizationId": "acme", "filters": [{"key": "team", "operator": "in", "value": "x"}]},
        headers=ws.key_headers,
    )
    assert issue_paths(assert_failure(bad, 400, "INVALID_ARGUMENT")) == ["data.filters[0].value"]


async def test_a_page_token_only_continues_its_own_listing(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, {"folderId": "f"})
    await add_docs(api, ws, "a", "b", "c", folderId="f")
    token = (await get_docs(api, ws, folderId="f", pageSize=1)).result["nextPageToken"]

    other_filter = await get_docs(api, ws, pageSize=1, pageToken=token)
    other_org = await get_docs(api, ws, org="other", pageSize=1, pageToken=token)
    same = await get_docs(api, ws, folderId="f", pageSize=1, pageToken=token)

    assert issue_paths(assert_failure(other_filter, 400, "INVALID_ARGUMENT")) == ["data.pageToken"]
    assert issue_paths(assert_failure(other_org, 400, "INVALID_ARGUMENT")) == ["data.pageToken"]
    assert [d["id"] for d in same.data] == ["b"]


# tenancy ------------------------------------------------------------------------------------------


async def test_another_workspaces_documents_are_not_found(api: ApiClient) -> None:
    a = await api.create_workspace("a@example.com")
    b = await api.create_workspace("b@example.com")
    await add_folders(api, a, {"folderId": "f"})
    await add_docs(api, a, "d1", folderId="f")

    listed = await get_docs(api, b)
    moved = await api.post(
        "/v2/organizations/documents/move",
        {"organizationId": "acme", "documentIds": ["d1"], "folderId": "root"},
        headers=b.key_headers,
    )
    deleted = await api.post(
        "/v2/organizations/documents/delete",
        {"organizationId": "acme", "documentIds": ["d1"]},
        headers=b.key_headers,
    )
    assert_failure(listed, 404, "NOT_FOUND")
    assert_failure(moved, 404, "NOT_FOUND")
    assert_failure(deleted, 404, "NOT_FOUND")

    # With an organization of the same id of its own, the other workspace still sees none of them.
    await add_docs(api, b, "mine")
    by_ids = await get_docs(api, b, documentIds=["d1"])
    access = await api.post(
        "/v2/organizations/documents/access/update",
        {"organizationId": "acme", "documentIds": ["d1"], "accessType": "restricted"},
        headers=b.key_headers,
    )
    into_their_folder = await add_docs(api, b, "x", folderId="f")
    assert assert_failure(by_ids, 500, "INTERNAL")["details"]["d1"]["code"] == "not-found"
    assert assert_failure(access, 500, "INTERNAL")["details"]["d1"]["code"] == "not-found"
    assert_failure(into_their_folder, 404, "NOT_FOUND")
    d1 = (await docs_by_id(api, a))["d1"]
    assert (d1["folderId"], d1["accessType"]) == ("f", "public")
