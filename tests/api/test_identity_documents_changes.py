"""Changing documents: delete, move and access updates, the events they publish, and
`rpc.identity.documents.ensure`."""

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
from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.documents_support import (
    add_docs,
    add_folders,
    docs_by_id,
)

# delete, move, access -----------------------------------------------------------------------------


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


# events -------------------------------------------------------------------------------------------


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


# rpc.identity.documents.ensure --------------------------------------------------------------------


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
