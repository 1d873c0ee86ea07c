"""Knowledge scoped to a document follows it: a migration moves it, a delete removes it."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Workspace
from tests.api.knowledge_support import TEXT, ingest, inline, settled

MIGRATE = "/v2/organizations/documents/migrate"


async def _listed(api: ApiClient, ws: Workspace) -> list[str]:
    listed = await api.post("/v2/memory/knowledge/list", {}, headers=ws.key_headers)
    assert listed.status == 200, listed.body
    return [item["id"] for item in listed.result]


async def _until_listed(api: ApiClient, ws: Workspace, expected: list[str]) -> list[str]:
    async with asyncio.timeout(30):
        while True:
            found = await _listed(api, ws)
            if found == expected:
                return found
            await asyncio.sleep(0.1)


async def _scoped_source(api: ApiClient, ws: Workspace, document_id: str) -> str:
    added = await api.post(
        "/v2/organizations/documents/add",
        {
            "organizationId": "acme",
            "createOrganization": True,
            "documents": [{"documentId": document_id}],
        },
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body
    body = inline(b"Invoices are paid within thirty days.\n", TEXT, "terms.txt")
    source_id = await ingest(api, ws, {**body, "organizationId": "acme", "documentId": document_id})
    assert (await settled(api, ws, source_id))["status"] == "completed"
    return source_id


async def _status(api: ApiClient, ws: Workspace, migration_id: str) -> Any:
    async with asyncio.timeout(30):
        while True:
            got = await api.post(
                MIGRATE + "/status",
                {"organizationId": "acme", "migrationId": migration_id},
                headers=ws.key_headers,
            )
            if got.data["status"] in ("completed", "failed"):
                return got.data
            await asyncio.sleep(0.05)


async def test_a_deleted_documents_knowledge_goes_and_other_knowledge_stays(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    doomed = await _scoped_source(api, ws, "contract")
    kept = await ingest(api, ws, inline(b"Office opens at nine.\n", TEXT, "office.txt"))
    await settled(api, ws, kept)
    assert set(await _listed(api, ws)) == {doomed, kept}

    deleted = await api.post(
        "/v2/organizations/documents/delete",
        {"organizationId": "acme", "documentIds": ["contract"]},
        headers=ws.key_headers,
    )
    assert deleted.status == 200, deleted.body

    assert await _until_listed(api, ws, [kept]) == [kept]


async def test_a_migration_moves_a_documents_knowledge_to_the_new_id(api: ApiClient) -> None:
    ws = await api.create_workspace()
    source_id = await _scoped_source(api, ws, "draft")
    started = await api.post(
        MIGRATE,
        {"organizationId": "acme", "documentId": "draft", "newDocumentId": "final"},
        headers=ws.key_headers,
    )
    assert started.status == 200, started.body
    assert (await _status(api, ws, started.data["migrationId"]))["status"] == "completed"

    # The source now belongs to the new id: deleting that document takes it along.
    deleted = await api.post(
        "/v2/organizations/documents/delete",
        {"organizationId": "acme", "documentIds": ["final"]},
        headers=ws.key_headers,
    )
    assert deleted.status == 200, deleted.body
    assert source_id not in await _until_listed(api, ws, [])
