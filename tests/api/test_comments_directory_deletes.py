"""Deleting in identity's directory takes the comment annotations of the documents that went:
a document, a folder's documents, an organization's. Left behind, they would sit under ids
identity no longer knows, which count as public by default, and user tokens would reach threads
their document had kept from them."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Workspace
from tests.api.comments_add_support import add, annotation
from tests.api.test_comments_get_visibility import as_user, grant, token_for

GET = "/v2/commentannotations/get"


async def documents_with_annotations(
    api: ApiClient,
    ws: Workspace,
    documents: tuple[str, ...],
    organization: str = "acme",
    headers: dict[str, str] | None = None,
) -> set[str]:
    """Which of `documents` show annotations to the caller (the key itself by default)."""
    shown = set()
    for document in documents:
        got = await api.post(
            GET,
            {"organizationId": organization, "documentId": document},
            headers=headers or ws.key_headers,
        )
        assert got.status == 200, got.body
        if got.data:
            shown.add(document)
    return shown


async def until(check: Any, expected: set[str]) -> set[str]:
    """What `check()` gives once it gives `expected`, or after 10 s (the consumer is a stream's
    hop away)."""
    for _ in range(200):
        found: set[str] = await check()
        if found == expected:
            break
        await asyncio.sleep(0.05)
    return found


async def directory(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> None:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, response.body


async def test_a_deleted_documents_annotations_go_and_no_user_token_reaches_them(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("deleted-doc@example.com")
    await directory(
        api,
        ws,
        "/v2/organizations/documents/add",
        {
            "organizationId": "acme",
            "createOrganization": True,
            "documents": [{"documentId": "hr", "accessType": "restricted"}, {"documentId": "faq"}],
        },
    )
    await grant(api, ws, "alice", {"type": "document", "id": "hr", "organizationId": "acme"})
    for document in ("hr", "faq"):
        assert (await add(api, ws, annotation(), documentId=document)).status == 200
    docs = ("hr", "faq")
    mallory = as_user(ws, await token_for(api, ws, "mallory"))
    assert await documents_with_annotations(api, ws, docs, headers=mallory) == {"faq"}

    await directory(
        api,
        ws,
        "/v2/organizations/documents/delete",
        {"organizationId": "acme", "documentIds": ["hr"]},
    )

    assert await until(lambda: documents_with_annotations(api, ws, docs), {"faq"}) == {"faq"}
    assert await documents_with_annotations(api, ws, docs, headers=mallory) == {"faq"}


async def test_a_deleted_folders_documents_lose_their_annotations(api: ApiClient) -> None:
    ws = await api.create_workspace("deleted-folder@example.com")
    await directory(
        api,
        ws,
        "/v2/organizations/folders/add",
        {
            "organizationId": "acme",
            "createOrganization": True,
            "folders": [{"folderId": "f1"}, {"folderId": "f2", "parentFolderId": "f1"}],
        },
    )
    for folder, document in (("f1", "in-f1"), ("f2", "in-f2")):
        await directory(
            api,
            ws,
            "/v2/organizations/documents/add",
            {"organizationId": "acme", "folderId": folder, "documents": [{"documentId": document}]},
        )
    for document in ("in-f1", "in-f2", "outside"):
        assert (await add(api, ws, annotation(), documentId=document)).status == 200

    await directory(
        api, ws, "/v2/organizations/folders/delete", {"organizationId": "acme", "folderId": "f1"}
    )

    docs = ("in-f1", "in-f2", "outside")
    assert await until(lambda: documents_with_annotations(api, ws, docs), {"outside"}) == {
        "outside"
    }


async def test_a_deleted_organizations_annotations_go_and_no_other(api: ApiClient) -> None:
    ws = await api.create_workspace("deleted-org@example.com")
    for organization in ("acme", "globex"):
        added = await add(api, ws, annotation(), organizationId=organization, documentId="d1")
        assert added.status == 200, added.body

    await directory(api, ws, "/v2/organizations/delete", {"organizationIds": ["acme"]})

    assert await until(lambda: documents_with_annotations(api, ws, ("d1",)), set()) == set()
    assert await documents_with_annotations(api, ws, ("d1",), "globex") == {"d1"}
