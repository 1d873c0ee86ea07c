"""Document migration: a job over every participating service, in two phases, that survives
restarts and never moves anything when the new id already holds data."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import nats
import pytest

from redline.proto.events import (
    DocumentMigrationChecked,
    DocumentMigrationMoved,
    Event,
    encode_event,
)
from redline.testing.api import ApiClient, StartApi, Workspace

MIGRATE = "/v2/organizations/documents/migrate"
STATUS = "/v2/organizations/documents/migrate/status"


async def seed_document(database_url: str, ws: Workspace, document_id: str, user: str) -> None:
    """Identity data keyed by the document: its row and a user's grant on it."""
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(
            "INSERT INTO identity.organization (api_key, organization_id) VALUES ($1, 'org')"
            " ON CONFLICT DO NOTHING",
            ws.api_key,
        )
        await conn.execute(
            "INSERT INTO identity.document (api_key, organization_id, document_id)"
            " VALUES ($1, 'org', $2)",
            ws.api_key,
            document_id,
        )
        await conn.execute(
            "INSERT INTO identity.access_grant (api_key, organization_id, user_id, resource_type,"
            " resource_id, access_role) VALUES ($1, 'org', $2, 'document', $3, 'viewer')",
            ws.api_key,
            user,
            document_id,
        )
    finally:
        await conn.close()


async def documents_of(database_url: str, ws: Workspace) -> dict[str, list[str]]:
    conn = await asyncpg.connect(database_url)
    try:
        docs = await conn.fetch(
            "SELECT document_id FROM identity.document WHERE api_key = $1", ws.api_key
        )
        grants = await conn.fetch(
            "SELECT resource_id FROM identity.access_grant WHERE api_key = $1", ws.api_key
        )
    finally:
        await conn.close()
    return {
        "documents": sorted(r["document_id"] for r in docs),
        "grants": sorted(r["resource_id"] for r in grants),
    }


async def wait_for_status(api: ApiClient, ws: Workspace, migration_id: str, want: str) -> Any:
    for _ in range(200):
        got = await api.post(
            STATUS, {"organizationId": "org", "migrationId": migration_id}, headers=ws.key_headers
        )
        assert got.status == 200, got.body
        if got.data["status"] == want:
            return got.data
        await asyncio.sleep(0.05)
    raise AssertionError(f"migration never reached {want}: {got.data}")


Reply = Callable[[Event], Awaitable[None]]


@pytest.fixture
def reply(nats_url: str) -> Reply:
    """Another participating service's reply, put on the stream as its outbox relay would."""

    async def send(event: Event) -> None:
        nc = await nats.connect(nats_url)
        try:
            await nc.jetstream().publish(
                event.subject, encode_event(event), headers={"Nats-Msg-Id": event.id}
            )
        finally:
            await nc.drain()

    return send


async def test_migration_moves_identity_data_and_completes(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("mover@example.com")
    await seed_document(database_url, ws, "old-doc", "u1")
    started = await api.post(
        MIGRATE,
        {"organizationId": "org", "documentId": "old-doc", "newDocumentId": "new-doc"},
        headers=ws.key_headers,
    )
    assert started.status == 200, started.body
    migration_id = started.data["migrationId"]
    assert await wait_for_status(api, ws, migration_id, "completed")
    assert await documents_of(database_url, ws) == {
        "documents": ["new-doc"],
        "grants": ["new-doc"],
    }


async def test_a_repeated_request_returns_the_same_migration(start_api: StartApi) -> None:
    # A participant that never answers keeps the job open long enough to ask twice.
    api = await start_api(migration_participants=["identity", "silent"])
    ws = await api.create_workspace("twice@example.com")
    body = {"organizationId": "org", "documentId": "d1", "newDocumentId": "d2"}
    first = await api.post(MIGRATE, body, headers=ws.key_headers)
    second = await api.post(MIGRATE, body, headers=ws.key_headers)
    assert first.data["migrationId"] == second.data["migrationId"]
    assert (await wait_for_status(api, ws, first.data["migrationId"], "pending"))["status"]
    other = await api.post(MIGRATE, {**body, "newDocumentId": "d3"}, headers=ws.key_headers)
    assert other.status == 400
    assert other.error["status"] == "FAILED_PRECONDITION"


async def test_concurrent_requests_for_one_document_start_one_migration(
    start_api: StartApi,
) -> None:
    api = await start_api(migration_participants=["identity", "silent"])
    ws = await api.create_workspace("together@example.com")
    body = {"organizationId": "org", "documentId": "d1", "newDocumentId": "d2"}

    answers = await asyncio.gather(
        *(api.post(MIGRATE, body, headers=ws.key_headers) for _ in range(12))
    )

    assert [a.status for a in answers] == [200] * 12, [a.body for a in answers]
    assert len({a.data["migrationId"] for a in answers}) == 1


async def test_new_id_holding_identity_data_is_refused_at_once(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("taken@example.com")
    await seed_document(database_url, ws, "a", "u1")
    await seed_document(database_url, ws, "b", "u2")
    refused = await api.post(
        MIGRATE,
        {"organizationId": "org", "documentId": "a", "newDocumentId": "b"},
        headers=ws.key_headers,
    )
    assert refused.status == 400
    assert refused.error["status"] == "INVALID_ARGUMENT"
    assert refused.error["details"]["issues"][0]["path"] == "data.newDocumentId"


async def test_same_id_is_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace("same@example.com")
    refused = await api.post(
        MIGRATE,
        {"organizationId": "org", "documentId": "a", "newDocumentId": "a"},
        headers=ws.key_headers,
    )
    assert refused.status == 400
    assert refused.error["details"]["issues"][0]["path"] == "data.newDocumentId"


async def test_another_service_holding_the_new_id_fails_the_job_before_anything_moves(
    start_api: StartApi, database_url: str, reply: Reply
) -> None:
    api = await start_api(migration_participants=["identity", "elsewhere"])
    ws = await api.create_workspace("blocked@example.com")
    await seed_document(database_url, ws, "old", "u1")
    started = await api.post(
        MIGRATE,
        {"organizationId": "org", "documentId": "old", "newDocumentId": "new"},
        headers=ws.key_headers,
    )
    migration_id = started.data["migrationId"]
    await reply(
        DocumentMigrationChecked(
            workspaceId=ws.id,
            service="elsewhere",
            migrationId=migration_id,
            apiKey=ws.api_key,
            ok=False,
            reason="elsewhere already holds data for the new document id",
        ),
    )
    failed = await wait_for_status(api, ws, migration_id, "failed")
    assert "elsewhere" in failed["failureReason"]
    assert await documents_of(database_url, ws) == {"documents": ["old"], "grants": ["old"]}


async def test_a_migration_resumes_after_the_service_restarts(
    start_api: StartApi, database_url: str, reply: Reply
) -> None:
    api = await start_api(migration_participants=["identity", "late"])
    ws = await api.create_workspace("restart@example.com")
    await seed_document(database_url, ws, "before", "u1")
    started = await api.post(
        MIGRATE,
        {"organizationId": "org", "documentId": "before", "newDocumentId": "after"},
        headers=ws.key_headers,
    )
    migration_id = started.data["migrationId"]
    await wait_for_status(api, ws, migration_id, "pending")
    await api.session.close()  # identity stops with the job half-way

    common = {"workspaceId": ws.id, "service": "late", "migrationId": migration_id}
    await reply(DocumentMigrationChecked(**common, apiKey=ws.api_key, ok=True))
    # A fresh identity process on the same database and NATS picks the job up where it was.
    api = await start_api(migration_participants=["identity", "late"])
    await wait_for_status(api, ws, migration_id, "in_progress")
    for _ in range(100):
        if (await documents_of(database_url, ws))["documents"] == ["after"]:
            break
        await asyncio.sleep(0.05)
    await reply(DocumentMigrationMoved(**common, apiKey=ws.api_key, movedRecords=3))
    await wait_for_status(api, ws, migration_id, "completed")
    assert await documents_of(database_url, ws) == {"documents": ["after"], "grants": ["after"]}


async def test_another_workspace_cannot_read_the_migration(api: ApiClient) -> None:
    owner = await api.create_workspace("owner@example.com")
    stranger = await api.create_workspace("stranger@example.com")
    started = await api.post(
        MIGRATE,
        {"organizationId": "org", "documentId": "x", "newDocumentId": "y"},
        headers=owner.key_headers,
    )
    peek = await api.post(
        STATUS,
        {"organizationId": "org", "migrationId": started.data["migrationId"]},
        headers=stranger.key_headers,
    )
    assert peek.status == 404
    assert peek.error["status"] == "NOT_FOUND"


async def test_migration_moves_the_documents_comment_annotations(api: ApiClient) -> None:
    ws = await api.create_workspace("threads@example.com")
    added = await api.post(
        "/v2/commentannotations/add",
        {
            "organizationId": "org",
            "documentId": "draft",
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": [
                {"commentData": [{"commentText": "Keep this.", "from": {"userId": "u1"}}]}
            ],
        },
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body
    [annotation_id] = list(added.data)
    started = await api.post(
        MIGRATE,
        {"organizationId": "org", "documentId": "draft", "newDocumentId": "final"},
        headers=ws.key_headers,
    )
    await wait_for_status(api, ws, started.data["migrationId"], "completed")

    def ids(response: Any) -> list[str]:
        return [a["annotationId"] for a in response.data]

    moved = await api.post(
        "/v2/commentannotations/get",
        {"organizationId": "org", "documentId": "final"},
        headers=ws.key_headers,
    )
    left = await api.post(
        "/v2/commentannotations/get",
        {"organizationId": "org", "documentId": "draft"},
        headers=ws.key_headers,
    )
    assert ids(moved) == [annotation_id]
    assert moved.data[0]["metadata"]["documentId"] == "final"
    assert ids(left) == []
