"""Identity's writes under a disabled organization or document: content and grants are refused
with FAILED_PRECONDITION; deletes and removing access go on; enabling restores the writes."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.disable_support import disable_doc, disable_org, set_orgs_disabled
from tests.api.documents_support import add_docs, add_folders, docs_by_id
from tests.api.organizations_support import get_orgs
from tests.api.users_support import add as add_users
from tests.api.users_support import members

ACME = {"organizationId": "acme"}
EDITOR = {"organizationId": "acme", "accessRole": "editor"}


def _on_document(doc: str) -> list[tuple[str, dict[str, Any]]]:
    """The writes that name document `doc` of acme."""
    return [
        ("/v2/organizations/documents/update", {**ACME, "documents": [{"documentId": doc}]}),
        ("/v2/organizations/documents/move", {**ACME, "documentIds": [doc], "folderId": "f1"}),
        (
            "/v2/organizations/documents/access/update",
            {**ACME, "documentIds": [doc], "accessType": "restricted"},
        ),
        ("/v2/users/add", {**ACME, "documentId": doc, "users": [{"userId": "bob"}]}),
        (
            "/v2/auth/permissions/add",
            {
                "user": {"userId": "bob"},
                "permissions": {"resources": [{"type": "document", "id": doc, **EDITOR}]},
            },
        ),
        (
            "/v2/organizations/documents/migrate",
            {**ACME, "documentId": doc, "newDocumentId": f"{doc}-new"},
        ),
    ]


# Writes in acme that name no document.
IN_ORGANIZATION: list[tuple[str, dict[str, Any]]] = [
    (
        "/v2/organizations/update",
        {"organizations": [{"organizationId": "acme", "organizationName": "X"}]},
    ),
    ("/v2/organizations/folders/add", {**ACME, "folders": [{"folderId": "f2"}]}),
    (
        "/v2/organizations/folders/update",
        {**ACME, "folders": [{"folderId": "f1", "folderName": "X"}]},
    ),
    (
        "/v2/organizations/folders/access/update",
        {**ACME, "folderIds": ["f1"], "accessType": "restricted"},
    ),
    ("/v2/organizations/documents/add", {**ACME, "documents": [{"documentId": "d3"}]}),
    ("/v2/users/add", {**ACME, "users": [{"userId": "bob"}]}),
    ("/v2/users/update", {**ACME, "users": [{"userId": "alice", "name": "Alice"}]}),
    (
        "/v2/auth/permissions/add",
        {
            "user": {"userId": "bob"},
            "permissions": {"resources": [{"type": "organization", "id": "acme", **EDITOR}]},
        },
    ),
]


async def _seeded(api: ApiClient) -> Workspace:
    ws = await api.create_workspace()
    await add_folders(api, ws, {"folderId": "f1"})
    added = await add_docs(api, ws, "d1", "d2")
    assert added.status == 200, added.body
    joined = await add_users(api, ws, **ACME, users=[{"userId": "alice"}])
    assert joined.status == 200, joined.body
    return ws


async def _refused(
    api: ApiClient, ws: Workspace, writes: list[tuple[str, dict[str, Any]]], reason: str
) -> None:
    for path, body in writes:
        refused = await api.post(path, body, headers=ws.key_headers)
        error = assert_failure(refused, 400, "FAILED_PRECONDITION")
        assert error["details"]["reason"] == reason, path


async def test_a_disabled_organization_refuses_every_directory_write(api: ApiClient) -> None:
    ws = await _seeded(api)
    docs_before = await docs_by_id(api, ws)
    await disable_org(api, ws)

    await _refused(api, ws, IN_ORGANIZATION + _on_document("d1"), "organization-disabled")

    assert await docs_by_id(api, ws) == docs_before
    assert (await get_orgs(api, ws)).data[0]["organizationName"] == ""
    assert set(await members(api, ws, **ACME)) == {"alice"}


async def test_a_disabled_document_refuses_the_writes_that_name_it(api: ApiClient) -> None:
    ws = await _seeded(api)
    await disable_doc(api, ws, "d1")

    await _refused(api, ws, _on_document("d1"), "document-disabled")

    # Its organization and its other documents stay writable.
    for path, body in IN_ORGANIZATION + _on_document("d2"):
        done = await api.post(path, body, headers=ws.key_headers)
        assert done.status == 200, (path, done.body)


async def test_deletes_and_removing_access_go_on_while_disabled(api: ApiClient) -> None:
    ws = await _seeded(api)
    await disable_doc(api, ws, "d1")
    await disable_org(api, ws)

    for path, body in [
        ("/v2/users/delete", {**ACME, "userIds": ["alice"]}),
        ("/v2/organizations/documents/delete", {**ACME, "documentIds": ["d1"]}),
        ("/v2/organizations/folders/delete", {**ACME, "folderId": "f1"}),
        ("/v2/organizations/delete", {"organizationIds": ["acme"]}),
    ]:
        done = await api.post(path, body, headers=ws.key_headers)
        assert done.status == 200, (path, done.body)
    assert (await get_orgs(api, ws)).data == []


async def test_enabling_the_organization_restores_its_writes(api: ApiClient) -> None:
    ws = await _seeded(api)
    await disable_org(api, ws)
    await _refused(api, ws, IN_ORGANIZATION[:1], "organization-disabled")

    enabled = await set_orgs_disabled(api, ws, "acme", disabled=False)
    assert enabled.status == 200, enabled.body

    for path, body in IN_ORGANIZATION + _on_document("d1"):
        done = await api.post(path, body, headers=ws.key_headers)
        assert done.status == 200, (path, done.body)
    assert (await get_orgs(api, ws)).data[0]["organizationName"] == "X"
