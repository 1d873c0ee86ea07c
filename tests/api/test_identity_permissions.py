"""Permissions: adding, removing and reading grants; the access model as permissions/get and the
`rpc.identity.access.check` RPC decide it (organization membership, restricted documents, folder
inheritance and moves, roles, expiry); the access client's cache and its invalidation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from redline.bus import Bus, rpc
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import PermissionDenied
from redline.proto.rpc import AccessCheck, AccessDecision, ResourceGrant
from redline.proto.subjects import RPC_ACCESS_CHECK
from redline.runtime.access import AccessClient
from redline.testing.api import ApiClient, Response, Workspace, assert_failure, issue_paths


async def grant(
    api: ApiClient, ws: Workspace, user_id: str, *resources: dict[str, Any]
) -> Response:
    response = await api.post(
        "/v2/auth/permissions/add",
        {"user": {"userId": user_id}, "permissions": {"resources": list(resources)}},
        headers=ws.key_headers,
    )
    assert response.status == 200, response.body
    return response


async def permissions(api: ApiClient, ws: Workspace, **data: Any) -> dict[str, Any]:
    response = await api.post("/v2/auth/permissions/get", data, headers=ws.key_headers)
    assert response.status == 200, response.body
    result: dict[str, Any] = response.data
    return result


def document(org: str, doc: str, role: str = "editor", **extra: Any) -> dict[str, Any]:
    return {"type": "document", "id": doc, "organizationId": org, "accessRole": role, **extra}


def folder(org: str, folder_id: str, role: str = "editor") -> dict[str, Any]:
    return {"type": "folder", "id": folder_id, "organizationId": org, "accessRole": role}


def organization(org: str, role: str = "editor", **extra: Any) -> dict[str, Any]:
    return {"type": "organization", "id": org, "accessRole": role, **extra}


DENIED = "permission_denied"
MISSING = "does_not_exist"


@pytest.fixture
async def bus(nats_url: str) -> AsyncIterator[Bus]:
    connected = await Bus.connect(nats_url, name="test-access")
    try:
        yield connected
    finally:
        await connected.close()


async def add_folder(
    db: asyncpg.Connection,
    ws: Workspace,
    org: str,
    folder_id: str,
    ancestors: list[str],
    *,
    access_type: str | None = "organizationPrivate",
    inherit: bool = True,
) -> None:
    await db.execute(
        "INSERT INTO identity.folder (api_key, organization_id, folder_id, parent_folder_id,"
        " ancestors, access_type, inherit_from_parent, effective_access_type)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        ws.api_key,
        org,
        folder_id,
        ancestors[-1] if ancestors else None,
        ancestors,
        access_type,
        inherit,
        access_type or "organizationPrivate",
    )


async def add_document(
    db: asyncpg.Connection,
    ws: Workspace,
    org: str,
    doc: str,
    *,
    folder_id: str | None = None,
    access_type: str | None = None,
) -> None:
    await db.execute(
        "INSERT INTO identity.document (api_key, organization_id, document_id, folder_id,"
        " access_type) VALUES ($1, $2, $3, $4, $5)",
        ws.api_key,
        org,
        doc,
        folder_id,
        access_type,
    )


async def move_folder(
    db: asyncpg.Connection, ws: Workspace, org: str, folder_id: str, ancestors: list[str]
) -> None:
    await db.execute(
        "UPDATE identity.folder SET parent_folder_id = $4, ancestors = $5"
        " WHERE api_key = $1 AND organization_id = $2 AND folder_id = $3",
        ws.api_key,
        org,
        folder_id,
        ancestors[-1] if ancestors else None,
        ancestors,
    )


async def check(
    bus: Bus, ws: Workspace, org: str, doc: str, user: str, *grants: ResourceGrant
) -> AccessDecision:
    return await rpc.call(
        bus.nc, RPC_ACCESS_CHECK, AccessCheck(ws.api_key, org, doc, user, grants), AccessDecision
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


# the access model --------------------------------------------------------------------------------


async def test_organization_members_reach_documents_unless_restricted(
    api: ApiClient, db: asyncpg.Connection, bus: Bus
) -> None:
    ws = await api.create_workspace("model@example.com")
    await api.post(
        "/v2/users/add",
        {"organizationId": "o", "users": [{"userId": "member", "accessRole": "viewer"}]},
        headers=ws.key_headers,
    )
    await add_document(db, ws, "o", "open", access_type="organizationPrivate")
    await add_document(db, ws, "o", "closed", access_type="restricted")
    await add_document(db, ws, "o", "closed-granted", access_type="restricted")
    await grant(api, ws, "member", document("o", "closed-granted", "editor"))
    await grant(api, ws, "outsider", document("o", "elsewhere"))

    got = await permissions(
        api,
        ws,
        organizationId="o",
        userIds=["member", "outsider"],
        documentIds=["open", "closed", "closed-granted", "ghost"],
    )

    assert got["member"]["organization"] == {"o": {"accessRole": "viewer"}}
    assert got["member"]["documents"]["open"] == {
        "accessRole": "viewer",
        "accessType": "organizationPrivate",
    }
    assert got["member"]["documents"]["closed"]["errorCode"] == DENIED
    assert got["member"]["documents"]["closed-granted"] == {
        "accessRole": "editor",
        "accessType": "restricted",
    }
    assert got["member"]["documents"]["ghost"]["errorCode"] == MISSING
    assert got["outsider"]["organization"]["o"]["errorCode"] == DENIED
    assert got["outsider"]["documents"]["open"]["errorCode"] == DENIED

    assert await check(bus, ws, "o", "open", "member") == AccessDecision(
        "viewer", "organizationPrivate", "organization"
    )
    assert await check(bus, ws, "o", "closed", "member") == AccessDecision(
        None, "restricted", "none"
    )
    assert await check(bus, ws, "o", "closed-granted", "member") == AccessDecision(
        "editor", "restricted", "document"
    )
    assert await check(bus, ws, "o", "open", "outsider") == AccessDecision(
        None, "organizationPrivate", "none"
    )


async def test_public_documents_admit_every_user_as_editor(
    api: ApiClient, db: asyncpg.Connection, bus: Bus
) -> None:
    ws = await api.create_workspace("public@example.com")
    await grant(api, ws, "someone", organization("o", "viewer"))
    await add_document(db, ws, "o", "pub", access_type="public")

    assert await check(bus, ws, "o", "pub", "anyone") == AccessDecision(
        "editor", "public", "public"
    )
    # Membership is the first rule that applies, so it decides the member's role.
    assert await check(bus, ws, "o", "pub", "someone") == AccessDecision(
        "viewer", "public", "organization"
    )


async def directory(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> None:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, response.body


async def test_folder_grants_reach_two_levels_down_and_follow_moves(
    api: ApiClient, bus: Bus
) -> None:
    ws = await api.create_workspace("folders@example.com")
    own = {"accessType": "organizationPrivate", "inheritFromParent": False}
    await directory(
        api,
        ws,
        "/v2/organizations/folders/add",
        {
            "organizationId": "o",
            "createOrganization": True,
            "folders": [
                {"folderId": "top", **own},
                {"folderId": "middle", "parentFolderId": "top"},
                {"folderId": "bottom", "parentFolderId": "middle"},
                {"folderId": "elsewhere", **own},
            ],
        },
    )
    await directory(
        api,
        ws,
        "/v2/organizations/documents/add",
        {"organizationId": "o", "folderId": "bottom", "documents": [{"documentId": "doc"}]},
    )
    await grant(api, ws, "u1", folder("o", "top", "viewer"))
    client = AccessClient(bus, ttl_s=600)
    await client.start()
    try:
        got = await permissions(
            api, ws, organizationId="o", userIds=["u1"], documentIds=["doc"], folderIds=["bottom"]
        )
        expected = {"accessRole": "viewer", "accessType": "organizationPrivate"}
        assert got["u1"]["documents"] == {"doc": expected}
        assert got["u1"]["folders"] == {"bottom": expected}
        assert await client.check(ws.api_key, "o", "doc", "u1") == AccessDecision(
            "viewer", "organizationPrivate", "folder"
        )

        await directory(
            api,
            ws,
            "/v2/organizations/folders/update",
            {
                "organizationId": "o",
                "folders": [{"folderId": "bottom", "parentFolderId": "elsewhere"}],
            },
        )

        got = await permissions(
            api, ws, organizationId="o", userIds=["u1"], documentIds=["doc"], folderIds=["bottom"]
        )
        assert got["u1"]["documents"]["doc"]["errorCode"] == DENIED
        assert got["u1"]["folders"]["bottom"]["errorCode"] == DENIED
        assert (await check(bus, ws, "o", "doc", "u1")).role is None
        # The move announced the change: the long-lived cache entry went with it.
        deadline = time.monotonic() + 10
        while (await client.check(ws.api_key, "o", "doc", "u1")).role is not None:
            assert time.monotonic() < deadline, "the move never reached the access client"
            await asyncio.sleep(0.05)
    finally:
        await client.stop()

    await grant(api, ws, "u1", folder("o", "elsewhere", "editor"))
    got = await permissions(api, ws, organizationId="o", userIds=["u1"], documentIds=["doc"])
    assert got["u1"]["documents"]["doc"] == {
        "accessRole": "editor",
        "accessType": "organizationPrivate",
    }


async def test_a_folder_moved_by_sql_is_decided_by_its_new_ancestors(
    api: ApiClient, db: asyncpg.Connection, bus: Bus
) -> None:
    ws = await api.create_workspace("foldersql@example.com")
    await grant(api, ws, "admin", organization("o"))
    await add_folder(db, ws, "o", "top", [])
    await add_folder(db, ws, "o", "middle", ["top"])
    await add_folder(db, ws, "o", "bottom", ["top", "middle"])
    await add_folder(db, ws, "o", "elsewhere", [])
    await add_document(db, ws, "o", "doc", folder_id="bottom")
    await grant(api, ws, "u1", folder("o", "middle", "editor"))
    assert (await check(bus, ws, "o", "doc", "u1")).role == "editor"

    await move_folder(db, ws, "o", "bottom", ["elsewhere"])

    assert (await check(bus, ws, "o", "doc", "u1")).role is None
    got = await permissions(api, ws, organizationId="o", userIds=["u1"], folderIds=["bottom"])
    assert got["u1"]["folders"]["bottom"]["errorCode"] == DENIED


async def test_a_folder_that_does_not_inherit_stops_the_climb(
    api: ApiClient, db: asyncpg.Connection, bus: Bus
) -> None:
    ws = await api.create_workspace("noinherit@example.com")
    await grant(api, ws, "admin", organization("o"))
    await add_folder(db, ws, "o", "top", [])
    await add_folder(db, ws, "o", "own", ["top"], inherit=False)
    await add_document(db, ws, "o", "doc", folder_id="own")
    await grant(api, ws, "u1", folder("o", "top"))
    await grant(api, ws, "u2", folder("o", "own", "viewer"))

    assert (await check(bus, ws, "o", "doc", "u1")).role is None
    assert await check(bus, ws, "o", "doc", "u2") == AccessDecision(
        "viewer", "organizationPrivate", "folder"
    )


async def test_the_nearest_grant_decides_viewer_or_editor(
    api: ApiClient, db: asyncpg.Connection, bus: Bus
) -> None:
    ws = await api.create_workspace("roles@example.com")
    await grant(api, ws, "u1", organization("o", "editor"))
    await add_folder(db, ws, "o", "f", [])
    await add_document(db, ws, "o", "doc", folder_id="f")
    await grant(api, ws, "u1", folder("o", "f", "viewer"))

    assert await check(bus, ws, "o", "doc", "u1") == AccessDecision(
        "viewer", "organizationPrivate", "folder"
    )
    client = AccessClient(bus)
    principal = ApiKeyPrincipal(ws.id, ws.api_key)
    assert (await client.require(principal, "o", "doc", write=False, user_id="u1")).role == "viewer"
    with pytest.raises(PermissionDenied):
        await client.require(principal, "o", "doc", write=True, user_id="u1")

    await grant(api, ws, "u1", document("o", "doc", "editor"))
    decision = await check(bus, ws, "o", "doc", "u1")
    assert decision == AccessDecision("editor", "organizationPrivate", "document")


async def test_expired_grants_do_not_count(
    api: ApiClient, db: asyncpg.Connection, bus: Bus
) -> None:
    ws = await api.create_workspace("expired@example.com")
    past = int(time.time()) - 60
    future = int(time.time()) + 3600
    await grant(
        api,
        ws,
        "u1",
        organization("o", expiresAt=past),
        document("o", "gone", expiresAt=past),
        document("o", "later", "viewer", expiresAt=future),
    )
    await db.execute(
        "UPDATE identity.document SET access_type = 'organizationPrivate' WHERE api_key = $1",
        ws.api_key,
    )

    got = await permissions(
        api, ws, organizationId="o", userIds=["u1"], documentIds=["gone", "later"]
    )

    assert got["u1"]["organization"]["o"]["errorCode"] == DENIED
    assert got["u1"]["documents"]["gone"]["errorCode"] == DENIED
    assert got["u1"]["documents"]["later"] == {
        "accessRole": "viewer",
        "accessType": "organizationPrivate",
        "expiresAt": future,
    }
    assert (await check(bus, ws, "o", "gone", "u1")).role is None
    assert (await check(bus, ws, "o", "later", "u1")).role == "viewer"


async def test_token_grants_count_only_in_their_organization(
    api: ApiClient, db: asyncpg.Connection, bus: Bus
) -> None:
    ws = await api.create_workspace("tokengrants@example.com")
    await grant(api, ws, "someone", organization("o"))
    await add_document(db, ws, "o", "doc", access_type="restricted")

    same_org = ResourceGrant("document", "doc", "o", "viewer")
    other_org = ResourceGrant("document", "doc", "p", "editor")

    assert await check(bus, ws, "o", "doc", "u1", same_org, other_org) == AccessDecision(
        "viewer", "restricted", "document"
    )
    assert (await check(bus, ws, "o", "doc", "u1", other_org)).role is None


async def test_get_reports_what_does_not_exist(api: ApiClient) -> None:
    ws = await api.create_workspace("missing@example.com")
    await grant(api, ws, "u1", organization("o"))

    got = await permissions(
        api, ws, organizationId="o", userIds=["u1", "ghost"], documentIds=["nope"], folderIds=["nf"]
    )
    assert got["ghost"] == {"error": "User does not exist.", "errorCode": MISSING}
    assert got["u1"]["documents"]["nope"]["errorCode"] == MISSING
    assert got["u1"]["folders"]["nf"]["errorCode"] == MISSING

    no_org = await permissions(api, ws, organizationId="none", userIds=["u1"], documentIds=["d"])
    assert no_org["u1"]["organization"]["none"]["errorCode"] == MISSING
    assert no_org["u1"]["documents"]["d"]["errorCode"] == MISSING


async def test_another_workspace_sees_nothing(api: ApiClient) -> None:
    owner = await api.create_workspace("permowner@example.com")
    intruder = await api.create_workspace("permintruder@example.com")
    await grant(api, owner, "u1", organization("o"), document("o", "d"))

    got = await permissions(api, intruder, organizationId="o", userIds=["u1"], documentIds=["d"])
    assert got == {"u1": {"error": "User does not exist.", "errorCode": MISSING}}
    removed = await api.post(
        "/v2/auth/permissions/remove",
        {"userId": "u1", "permissions": {"resources": [organization("o")]}},
        headers=intruder.key_headers,
    )
    assert removed.status == 200, removed.body
    still = await permissions(api, owner, organizationId="o", userIds=["u1"], documentIds=["d"])
    assert still["u1"]["organization"] == {"o": {"accessRole": "editor"}}


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
