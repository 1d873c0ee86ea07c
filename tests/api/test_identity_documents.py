"""Documents: add (with create flags), update, get (paged, by folder), delete, move, access;
effective access types; the events they publish; `rpc.identity.documents.ensure`; and tenancy
between workspaces."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import nats
import pytest
from nats.aio.msg import Msg

from redline.bus import rpc
from redline.envelope.errors import InvalidArgument, NotFound
from redline.proto.events import AccessChanged, DocumentUpdated, decode_event
from redline.proto.rpc import EnsuredDocument, EnsureDocument
from redline.proto.subjects import RPC_DOCUMENTS_ENSURE
from redline.testing.api import ApiClient, Response, Workspace, assert_failure, issue_paths

DOCUMENT_FIELDS = {
    "id",
    "documentName",
    "organizationId",
    "folderId",
    "accessType",
    "metadata",
    "createdAt",
    "lastUpdated",
}


async def add_docs(
    api: ApiClient, ws: Workspace, *docs: dict[str, Any] | str, org: str = "acme", **data: Any
) -> Response:
    documents = [{"documentId": d} if isinstance(d, str) else d for d in docs]
    return await api.post(
        "/v2/organizations/documents/add",
        {"organizationId": org, "createOrganization": True, "documents": documents, **data},
        headers=ws.key_headers,
    )


async def get_docs(api: ApiClient, ws: Workspace, org: str = "acme", **data: Any) -> Response:
    return await api.post(
        "/v2/organizations/documents/get", {"organizationId": org, **data}, headers=ws.key_headers
    )


async def docs_by_id(api: ApiClient, ws: Workspace, org: str = "acme") -> dict[str, Any]:
    found = await get_docs(api, ws, org)
    assert found.status == 200, found.body
    return {d["id"]: d for d in found.data}


async def add_folders(
    api: ApiClient, ws: Workspace, *folders: dict[str, Any], org: str = "acme"
) -> None:
    added = await api.post(
        "/v2/organizations/folders/add",
        {"organizationId": org, "createOrganization": True, "folders": list(folders)},
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body


# add, get, effective access ----------------------------------------------------------------------


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


# update ------------------------------------------------------------------------------------------


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


# get ---------------------------------------------------------------------------------------------


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
    by_ids = await get_docs(api, ws, documentIds=["f2", "loose", "nope"])
    in_f_by_ids = await get_docs(api, ws, folderId="f", documentIds=["f2", "loose"])
    missing_folder = await get_docs(api, ws, folderId="ghost")

    assert [d["id"] for d in in_f.data] == ["f1", "f2"]
    assert [d["id"] for d in at_root.data] == ["loose"]
    assert [d["id"] for d in by_ids.data] == ["f2", "loose"]
    assert [d["id"] for d in in_f_by_ids.data] == ["f2"]
    assert_failure(missing_folder, 404, "NOT_FOUND")


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


# delete, move, access ----------------------------------------------------------------------------


async def test_delete_answers_per_id_and_keeps_other_documents(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_docs(api, ws, "d1", "d2", "d3")

    deleted = await api.post(
        "/v2/organizations/documents/delete",
        {"organizationId": "acme", "documentIds": ["d1", "d3"]},
        headers=ws.key_headers,
    )
    partly = await api.post(
        "/v2/organizations/documents/delete",
        {"organizationId": "acme", "documentIds": ["d2", "d1"]},
        headers=ws.key_headers,
    )

    assert deleted.status == 200, deleted.body
    assert deleted.result["message"] == "Document(s) deleted successfully."
    assert deleted.data == {
        "d1": {"success": True, "id": "d1", "message": "Deleted Successfully"},
        "d3": {"success": True, "id": "d3", "message": "Deleted Successfully"},
    }
    error = assert_failure(partly, 500, "INTERNAL")
    assert error["details"]["d2"]["success"] is True
    assert error["details"]["d1"]["code"] == "not-found"
    assert await docs_by_id(api, ws) == {}


async def test_move_into_a_folder_and_back_to_the_root(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, {"folderId": "vault", "accessType": "restricted"})
    await add_docs(api, ws, "d1", "d2", {"documentId": "d3", "accessType": "public"})

    moved = await api.post(
        "/v2/organizations/documents/move",
        {"organizationId": "acme", "documentIds": ["d1", "d3"], "folderId": "vault"},
        headers=ws.key_headers,
    )

    assert moved.status == 200, moved.body
    assert moved.result["message"] == "Documents moved successfully."
    assert moved.data == {
        "d1": {"success": True, "id": "d1", "message": "Moved Successfully"},
        "d3": {"success": True, "id": "d3", "message": "Moved Successfully"},
    }
    found = await docs_by_id(api, ws)
    assert {d: (found[d]["folderId"], found[d]["accessType"]) for d in found} == {
        "d1": ("vault", "restricted"),
        "d2": ("root", "public"),
        "d3": ("vault", "public"),
    }
    back = await api.post(
        "/v2/organizations/documents/move",
        {"organizationId": "acme", "documentIds": ["d1", "ghost"], "folderId": "root"},
        headers=ws.key_headers,
    )
    error = assert_failure(back, 500, "INTERNAL")
    assert error["details"]["ghost"]["code"] == "not-found"
    assert (await docs_by_id(api, ws))["d1"]["folderId"] == "root"


async def test_move_into_a_missing_folder_is_not_found_and_moves_nothing(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_docs(api, ws, "d1")

    moved = await api.post(
        "/v2/organizations/documents/move",
        {"organizationId": "acme", "documentIds": ["d1"], "folderId": "ghost"},
        headers=ws.key_headers,
    )

    assert_failure(moved, 404, "NOT_FOUND")
    assert (await docs_by_id(api, ws))["d1"]["folderId"] == "root"


async def test_access_update_sets_the_documents_own_type(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_folders(api, ws, {"folderId": "vault", "accessType": "restricted"})
    await add_docs(api, ws, "d1", folderId="vault")
    await add_docs(api, ws, "d2")

    updated = await api.post(
        "/v2/organizations/documents/access/update",
        {
            "organizationId": "acme",
            "documentIds": ["d1", "d2"],
            "accessType": "organizationPrivate",
        },
        headers=ws.key_headers,
    )
    invalid = await api.post(
        "/v2/organizations/documents/access/update",
        {"organizationId": "acme", "documentIds": ["d1"], "accessType": "secret"},
        headers=ws.key_headers,
    )
    partly = await api.post(
        "/v2/organizations/documents/access/update",
        {"organizationId": "acme", "documentIds": ["d2", "ghost"], "accessType": "restricted"},
        headers=ws.key_headers,
    )

    assert updated.status == 200, updated.body
    assert updated.result["message"] == "Updated access for documents successfully."
    assert updated.data == {
        doc: {
            "success": True,
            "accessType": "organizationPrivate",
            "message": "Document access type updated.",
        }
        for doc in ("d1", "d2")
    }
    assert issue_paths(assert_failure(invalid, 400, "INVALID_ARGUMENT")) == ["data.accessType"]
    error = assert_failure(partly, 500, "INTERNAL")
    assert error["details"]["ghost"] == {
        "success": False,
        "accessType": None,
        "message": "Document does not exist.",
        "code": "not-found",
    }
    found = await docs_by_id(api, ws)
    assert (found["d1"]["accessType"], found["d2"]["accessType"]) == (
        "organizationPrivate",
        "restricted",
    )


# events ------------------------------------------------------------------------------------------


async def test_an_access_change_is_announced_for_the_organization(
    api: ApiClient, nats_url: str
) -> None:
    ws = await api.create_workspace()
    await add_docs(api, ws, "d1")
    heard: asyncio.Queue[bytes] = asyncio.Queue()

    async def on_event(msg: Msg) -> None:
        await heard.put(msg.data)

    nc = await nats.connect(nats_url)
    try:
        await nc.subscribe("evt.identity.>", cb=on_event)
        await nc.flush()
        updated = await api.post(
            "/v2/organizations/documents/access/update",
            {"organizationId": "acme", "documentIds": ["d1"], "accessType": "restricted"},
            headers=ws.key_headers,
        )
        assert updated.status == 200, updated.body

        seen: dict[type, Any] = {}
        async with asyncio.timeout(10):
            while AccessChanged not in seen or DocumentUpdated not in seen:
                try:
                    event = decode_event(await heard.get())
                except msgspec.DecodeError:
                    continue
                seen[type(event)] = event
    finally:
        await nc.drain()

    assert seen[AccessChanged].apiKey == ws.api_key
    assert seen[AccessChanged].organizationId == "acme"
    assert seen[AccessChanged].workspaceId == ws.id
    assert seen[DocumentUpdated].documentId == "d1"
    assert seen[DocumentUpdated].accessType == "restricted"


# rpc.identity.documents.ensure -------------------------------------------------------------------


async def test_ensure_rpc_creates_only_when_asked_and_is_idempotent(
    api: ApiClient, nats_url: str
) -> None:
    ws = await api.create_workspace()
    nc = await nats.connect(nats_url)
    try:
        with pytest.raises(NotFound):
            await rpc.call(
                nc, RPC_DOCUMENTS_ENSURE, EnsureDocument(ws.api_key, "acme", "d1"), EnsuredDocument
            )
        org_only = EnsureDocument(ws.api_key, "acme", "d1", createOrganization=True)
        with pytest.raises(NotFound):
            await rpc.call(nc, RPC_DOCUMENTS_ENSURE, org_only, EnsuredDocument)

        both = EnsureDocument(
            ws.api_key, "acme", "d1", createOrganization=True, createDocument=True
        )
        created = await rpc.call(nc, RPC_DOCUMENTS_ENSURE, both, EnsuredDocument)
        again = await rpc.call(nc, RPC_DOCUMENTS_ENSURE, both, EnsuredDocument)
        existing = await rpc.call(
            nc, RPC_DOCUMENTS_ENSURE, EnsureDocument(ws.api_key, "acme", "d1"), EnsuredDocument
        )

        with pytest.raises(NotFound):
            await rpc.call(
                nc,
                RPC_DOCUMENTS_ENSURE,
                EnsureDocument("no-such-key", "acme", "d1", True, True),
                EnsuredDocument,
            )
        with pytest.raises(InvalidArgument):
            await rpc.call(
                nc, RPC_DOCUMENTS_ENSURE, EnsureDocument(ws.api_key, "", "d1"), EnsuredDocument
            )
    finally:
        await nc.drain()

    # A NOT_FOUND creates nothing, not even the organization it was allowed to create.
    assert created == EnsuredDocument("acme", "d1", organizationCreated=True, documentCreated=True)
    assert again == EnsuredDocument("acme", "d1", organizationCreated=False, documentCreated=False)
    assert existing == again
    found = await docs_by_id(api, ws)
    assert found["d1"]["folderId"] == "root"
    assert found["d1"]["accessType"] == "public"


async def test_ensure_rpc_is_per_api_key(api: ApiClient, nats_url: str) -> None:
    a = await api.create_workspace("a@example.com")
    b = await api.create_workspace("b@example.com")
    await add_docs(api, a, "d1")
    nc = await nats.connect(nats_url)
    try:
        with pytest.raises(NotFound):
            await rpc.call(
                nc, RPC_DOCUMENTS_ENSURE, EnsureDocument(b.api_key, "acme", "d1"), EnsuredDocument
            )
        created = await rpc.call(
            nc,
            RPC_DOCUMENTS_ENSURE,
            EnsureDocument(b.api_key, "acme", "d1", createOrganization=True, createDocument=True),
            EnsuredDocument,
        )
    finally:
        await nc.drain()

    assert created == EnsuredDocument("acme", "d1", organizationCreated=True, documentCreated=True)


# tenancy -----------------------------------------------------------------------------------------


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
    assert by_ids.data == []
    assert assert_failure(access, 500, "INTERNAL")["details"]["d1"]["code"] == "not-found"
    assert_failure(into_their_folder, 404, "NOT_FOUND")
    d1 = (await docs_by_id(api, a))["d1"]
    assert (d1["folderId"], d1["accessType"]) == ("f", "public")
