"""While a document migrates, its new id is held and both ids keep the moving document's access:
no document can be created with the new id, a document created just before the migration makes
it refuse, and a reader of either id is never treated as reading an unknown, public document."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from redline.bus import Bus
from redline.proto.events import DocumentMigrationChecked, DocumentMigrationMoved
from redline.testing.api import ApiClient, Response, StartApi, Workspace
from tests.api.permissions_support import check
from tests.api.test_identity_document_migration import (
    MIGRATE,
    Reply,
    documents_of,
    reply,
    wait_for_status,
)

__all__ = ["reply"]  # the fixture that sends a participant's answer


@pytest.fixture
async def api(start_api: StartApi) -> ApiClient:
    # A participant that never answers keeps every migration open (pending).
    return await start_api(migration_participants=["identity", "silent"])


async def ok(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> Any:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, (path, response.body)
    return response.data


async def add_documents(api: ApiClient, ws: Workspace, *documents: dict[str, Any]) -> Response:
    return await api.post(
        "/v2/organizations/documents/add",
        {"organizationId": "org", "createOrganization": True, "documents": list(documents)},
        headers=ws.key_headers,
    )


def outcomes(added: Response) -> dict[str, Any]:
    """Each document's outcome: the data of a success, the details of a partial failure."""
    found: dict[str, Any] = added.data if added.status == 200 else added.error["details"]
    return found


async def migrate(api: ApiClient, ws: Workspace, old: str, new: str) -> Response:
    return await api.post(
        MIGRATE,
        {"organizationId": "org", "documentId": old, "newDocumentId": new},
        headers=ws.key_headers,
    )


async def test_no_document_can_be_created_with_a_held_id(api: ApiClient) -> None:
    ws = await api.create_workspace("held@example.com")
    assert (await add_documents(api, ws, {"documentId": "old"})).status == 200
    started = await migrate(api, ws, "old", "new")
    await wait_for_status(api, ws, started.data["migrationId"], "pending")

    added = outcomes(await add_documents(api, ws, {"documentId": "new"}, {"documentId": "other"}))
    assert added["new"] == {
        "success": False,
        "id": "new",
        "message": "Document id new is held: a document is being migrated to it.",
        "code": "failed-precondition",
    }
    assert added["other"]["success"] is True
    commented = await api.post(
        "/v2/commentannotations/add",
        {
            "organizationId": "org",
            "documentId": "new",
            "createDocument": True,
            "commentAnnotations": [{"commentData": [{"from": {"userId": "u1"}}]}],
        },
        headers=ws.key_headers,
    )
    assert commented.status == 400, commented.body
    assert commented.error["status"] == "FAILED_PRECONDITION"


async def test_a_document_add_racing_a_migration_never_leaves_both(api: ApiClient) -> None:
    ws = await api.create_workspace("race@example.com")
    pairs = [(f"old-{n}", f"new-{n}") for n in range(12)]
    assert (await add_documents(api, ws, *({"documentId": o} for o, _ in pairs))).status == 200

    async def race(old: str, new: str, document_first: bool) -> tuple[bool, bool]:
        calls = [migrate(api, ws, old, new), add_documents(api, ws, {"documentId": new})]
        if document_first:
            calls.reverse()
        answers = await asyncio.gather(*calls)
        migration, document = answers[::-1] if document_first else answers
        return migration.status == 200, bool(outcomes(document)[new]["success"])

    raced = await asyncio.gather(
        *(race(old, new, n % 2 == 0) for n, (old, new) in enumerate(pairs))
    )

    # Exactly one of the two wins each race: the migration holds the id, or the document that
    # came first makes the migration refuse it.
    assert all(started != created for started, created in raced), raced


async def test_both_ids_keep_the_moving_document_s_access_until_it_ends(
    api: ApiClient, bus: Bus, database_url: str, reply: Reply
) -> None:
    ws = await api.create_workspace("reader@example.com")
    added = await add_documents(api, ws, {"documentId": "old", "accessType": "restricted"})
    assert added.status == 200, added.body

    async def access_type(document_id: str) -> str | None:
        return (await check(bus, ws, "org", document_id, "ana")).accessType

    # An id nobody knows is a public document by default.
    assert await access_type("never-seen") == "public"
    started = await migrate(api, ws, "old", "new")
    migration_id = started.data["migrationId"]
    await wait_for_status(api, ws, migration_id, "pending")
    # Other services may move their data to the new id before identity moves its row.
    assert await access_type("new") == "restricted"

    # Every participant found the new id free: identity moves its row, others may not have yet.
    common = {"workspaceId": ws.id, "service": "silent", "migrationId": migration_id}
    await reply(DocumentMigrationChecked(**common, apiKey=ws.api_key, ok=True))
    await wait_for_status(api, ws, migration_id, "in_progress")
    for _ in range(200):
        if (await documents_of(database_url, ws))["documents"] == ["new"]:
            break
        await asyncio.sleep(0.05)
    assert await access_type("old") == "restricted"
    assert await access_type("new") == "restricted"

    await reply(DocumentMigrationMoved(**common, apiKey=ws.api_key, movedRecords=1))
    await wait_for_status(api, ws, migration_id, "completed")
    assert await access_type("old") == "public"  # nothing is left under it
