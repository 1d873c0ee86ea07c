"""users/add with the official SDK's `parentFolderId`: where the folder or document the call
creates goes."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace, assert_failure, issue_paths
from tests.api.folders_support import add_folders, folder, folders_by_id
from tests.api.users_support import add, members

USERS = [{"userId": "ada"}]


async def add_to(api: ApiClient, ws: Workspace, **data: Any) -> Response:
    return await add(api, ws, organizationId="acme", users=USERS, **data)


async def document_folder(api: ApiClient, ws: Workspace, document_id: str) -> str:
    found = await api.post(
        "/v2/organizations/documents/get",
        {"organizationId": "acme", "documentIds": [document_id]},
        headers=ws.key_headers,
    )
    assert found.status == 200, found.body
    [document] = found.data
    folder_id: str = document["folderId"]
    return folder_id


async def test_a_document_created_for_users_goes_into_the_parent_folder(api: ApiClient) -> None:
    ws = await api.create_workspace("placedoc@example.com")
    made = await add_folders(api, ws, folder("f1"))
    assert made.status == 200, made.body

    added = await add_to(api, ws, documentId="d1", createDocument=True, parentFolderId="f1")
    at_root = await add_to(api, ws, documentId="d2", createDocument=True, parentFolderId="root")
    # An existing document stays where it is.
    again = await add_to(api, ws, documentId="d2", parentFolderId="f1")

    assert added.status == 200, added.body
    assert await document_folder(api, ws, "d1") == "f1"
    assert (at_root.status, again.status) == (200, 200)
    assert await document_folder(api, ws, "d2") == "root"
    listed = await members(api, ws, organizationId="acme", documentId="d1")
    assert listed["ada"]["accessRole"] == "editor"


async def test_a_missing_parent_folder_is_created_with_create_folder(api: ApiClient) -> None:
    ws = await api.create_workspace("placemissing@example.com")
    await add(api, ws, organizationId="acme", users=USERS)

    refused = await add_to(api, ws, documentId="d1", createDocument=True, parentFolderId="f9")
    created = await add_to(
        api, ws, documentId="d1", createDocument=True, parentFolderId="f9", createFolder=True
    )

    assert_failure(refused, 404, "NOT_FOUND")
    assert created.status == 200, created.body
    assert await document_folder(api, ws, "d1") == "f9"
    folders = await folders_by_id(api, ws)
    assert folders["f9"]["parentFolderId"] == "root"


async def test_a_folder_created_for_users_goes_under_the_parent_folder(api: ApiClient) -> None:
    ws = await api.create_workspace("placefolder@example.com")
    made = await add_folders(api, ws, folder("top", accessType="restricted"))
    assert made.status == 200, made.body

    added = await add_to(api, ws, folderId="sub", createFolder=True, parentFolderId="top")
    itself = await add_to(api, ws, folderId="loop", createFolder=True, parentFolderId="loop")

    assert added.status == 200, added.body
    folders = await folders_by_id(api, ws)
    assert folders["sub"]["parentFolderId"] == "top"
    assert folders["sub"]["ancestors"] == ["root", "top"]
    # It inherits from its parent.
    assert (folders["sub"]["accessType"], folders["sub"]["inheritAccessFromParent"]) == (
        "restricted",
        True,
    )
    assert_failure(itself, 400, "INVALID_ARGUMENT")
    assert "loop" not in await folders_by_id(api, ws)


async def test_parent_folder_id_needs_a_folder_or_document(api: ApiClient) -> None:
    ws = await api.create_workspace("placeorg@example.com")

    refused = await add_to(api, ws, parentFolderId="f1")

    assert issue_paths(assert_failure(refused, 400, "INVALID_ARGUMENT")) == ["data.parentFolderId"]
