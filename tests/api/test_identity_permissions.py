"""Permissions: adding, removing and reading grants; a user token reads only its own; the access
client's cache and its invalidation. The access model they decide is in
test_identity_access_model."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import asyncpg
import pytest

from redline.bus import Bus
from redline.runtime.access import AccessClient
from redline.testing.api import ApiClient, Response, assert_failure, issue_paths
from tests.api.permissions_support import (
    DENIED,
    add_document,
    document,
    folder,
    grant,
    organization,
    permissions,
)

# adding and removing -----------------------------------------------------------------------------


async def test_add_answers_a_message_and_get_shows_the_grants(api: ApiClient) -> None:
    ws = await api.create_workspace("perms@example.com")

    added = await api.post(
        "/v2/auth/permissions/add",
        {
            "user": {"userId": "u1"},
            "permissions": {
                "resources": [
                    organization("o", "viewer"),
                    document("o", "d1"),
                    folder("o", "f1", "viewer"),
                ]
            },
        },
        headers=ws.key_headers,
    )

    assert added.status == 200, added.body
    assert added.result == {
        "status": "success",
        "message": "Permissions added successfully.",
        "data": None,
    }
    got = await permissions(
        api, ws, organizationId="o", userIds=["u1"], documentIds=["d1"], folderIds=["f1"]
    )
    assert got == {
        "u1": {
            "organization": {"o": {"accessRole": "viewer"}},
            # Created by the grant: no access type of their own, so the default (public).
            "folders": {"f1": {"accessRole": "viewer", "accessType": "public"}},
            "documents": {"d1": {"accessRole": "editor", "accessType": "public"}},
        }
    }


async def test_remove_takes_grants_away(api: ApiClient, db: asyncpg.Connection) -> None:
    ws = await api.create_workspace("remove@example.com")
    await grant(api, ws, "u1", organization("o"), document("o", "d1"), document("o", "d2"))
    await db.execute(
        "UPDATE identity.document SET access_type = 'restricted' WHERE api_key = $1", ws.api_key
    )

    removed = await api.post(
        "/v2/auth/permissions/remove",
        {
            "userId": "u1",
            "permissions": {
                "resources": [
                    document("o", "d1"),
                    organization("o"),
                    document("o", "never-granted"),
                ]
            },
        },
        headers=ws.key_headers,
    )

    assert removed.status == 200, removed.body
    assert removed.result["message"] == "Permissions removed successfully."
    got = await permissions(api, ws, organizationId="o", userIds=["u1"], documentIds=["d1", "d2"])
    assert got["u1"]["organization"]["o"]["errorCode"] == DENIED
    assert got["u1"]["documents"]["d1"]["errorCode"] == DENIED
    assert got["u1"]["documents"]["d2"] == {"accessRole": "editor", "accessType": "restricted"}


@pytest.mark.parametrize("path", ["/v2/auth/permissions/add", "/v2/auth/permissions/remove"])
@pytest.mark.parametrize("kind", ["document", "folder"])
async def test_documents_and_folders_need_their_organization(
    api: ApiClient, path: str, kind: str
) -> None:
    ws = await api.create_workspace("needorg@example.com")
    resources = [organization("o"), {"type": kind, "id": "x"}]
    user: dict[str, Any] = {"user": {"userId": "u1"}} if path.endswith("add") else {"userId": "u1"}

    response = await api.post(
        path, {**user, "permissions": {"resources": resources}}, headers=ws.key_headers
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.permissions.resources[1].organizationId"]


async def test_invalid_permission_requests(api: ApiClient) -> None:
    ws = await api.create_workspace("badperms@example.com")

    async def add(data: dict[str, Any]) -> Response:
        return await api.post("/v2/auth/permissions/add", data, headers=ws.key_headers)

    bad_type = await add(
        {"user": {"userId": "u"}, "permissions": {"resources": [{"type": "x", "id": "o"}]}}
    )
    assert issue_paths(assert_failure(bad_type, 400, "INVALID_ARGUMENT")) == [
        "data.permissions.resources[0].type"
    ]
    millis = await add(
        {
            "user": {"userId": "u"},
            "permissions": {"resources": [organization("o", expiresAt=1_900_000_000_000_000)]},
        }
    )
    assert issue_paths(assert_failure(millis, 400, "INVALID_ARGUMENT")) == [
        "data.permissions.resources[0].expiresAt"
    ]
    mismatch = await add(
        {
            "user": {"userId": "u"},
            "permissions": {"resources": [organization("o", organizationId="p")]},
        }
    )
    assert_failure(mismatch, 400, "INVALID_ARGUMENT")
    no_user = await add({"permissions": {"resources": [organization("o")]}})
    assert issue_paths(assert_failure(no_user, 400, "INVALID_ARGUMENT")) == ["data.user"]


# callers and caches ------------------------------------------------------------------------------


async def test_a_user_token_reads_only_its_own_permissions(api: ApiClient) -> None:
    ws = await api.create_workspace("ownperms@example.com")
    await grant(api, ws, "u1", organization("o", "viewer"))
    await grant(api, ws, "u2", organization("o"))
    generated = await api.post(
        "/v2/auth/generate_token",
        {"userId": "u1", "permissions": {"resources": [document("o", "d", "editor")]}},
        headers=ws.key_headers,
    )
    as_user = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": generated.data["token"]}
    await grant(api, ws, "someone", document("o", "d"))

    got = await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "o", "userIds": ["u1", "u2"], "documentIds": ["d"]},
        headers=as_user,
    )

    assert got.status == 200, got.body
    assert got.data["u1"]["organization"] == {"o": {"accessRole": "viewer"}}
    # The token's resource counts for its own user.
    assert got.data["u1"]["documents"]["d"] == {"accessRole": "editor", "accessType": "public"}
    assert got.data["u2"]["errorCode"] == DENIED
    for path in ["/v2/auth/permissions/add", "/v2/auth/permissions/remove"]:
        body: dict[str, Any] = {"permissions": {"resources": [organization("o")]}}
        body.update({"user": {"userId": "u1"}} if path.endswith("add") else {"userId": "u1"})
        assert_failure(await api.post(path, body, headers=as_user), 403, "PERMISSION_DENIED")


async def test_the_access_client_drops_its_cache_when_grants_change(
    api: ApiClient, db: asyncpg.Connection, bus: Bus
) -> None:
    ws = await api.create_workspace("cache@example.com")
    await grant(api, ws, "someone", organization("o"))
    await add_document(db, ws, "o", "doc", access_type="restricted")
    # A time bound far longer than the test: only the change event can refresh the entry.
    client = AccessClient(bus, ttl_s=600)
    await client.start()
    try:
        assert (await client.check(ws.api_key, "o", "doc", "u1")).role is None

        await grant(api, ws, "u1", document("o", "doc", "viewer"))

        deadline = time.monotonic() + 10
        while (await client.check(ws.api_key, "o", "doc", "u1")).role is None:
            assert time.monotonic() < deadline, "access change never reached the client"
            await asyncio.sleep(0.05)
        # Every change event identity wrote so far has reached the client (a late one would drop
        # the entry below): the outbox is empty, and NATS delivers in order on one connection.
        while await db.fetchval("SELECT count(*) FROM identity.outbox"):
            assert time.monotonic() < deadline, "identity's events were never published"
            await asyncio.sleep(0.05)
        await bus.nc.flush()
        assert (await client.check(ws.api_key, "o", "doc", "u1")).role == "viewer"

        # Without an event the cached answer stands, even though the database changed.
        await db.execute(
            "DELETE FROM identity.access_grant WHERE api_key = $1 AND user_id = 'u1'", ws.api_key
        )
        assert (await client.check(ws.api_key, "o", "doc", "u1")).role == "viewer"
        client.forget_api_key(ws.api_key)
        assert (await client.check(ws.api_key, "o", "doc", "u1")).role is None
    finally:
        await client.stop()
