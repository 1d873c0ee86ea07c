"""The access model as permissions/get and the `rpc.identity.access.check` RPC decide it:
organization membership, restricted and public documents, folder inheritance and moves, roles,
expiry, token grants, what does not exist, and tenancy."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from redline.bus import Bus
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import PermissionDenied
from redline.proto.rpc import AccessDecision, ResourceGrant
from redline.runtime.access import AccessClient
from redline.testing.api import ApiClient, assert_failure
from tests.api.permissions_support import (
    DENIED,
    MISSING,
    add_document,
    add_folder,
    check,
    directory,
    document,
    folder,
    grant,
    move_folder,
    organization,
    permissions,
)

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
        skipResourceExistenceValidation=True,
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
        api,
        ws,
        organizationId="o",
        userIds=["u1", "ghost"],
        documentIds=["nope"],
        folderIds=["nf"],
        skipResourceExistenceValidation=True,
    )
    assert got["ghost"] == {"error": "User does not exist.", "errorCode": MISSING}
    assert got["u1"]["documents"]["nope"]["errorCode"] == MISSING
    assert got["u1"]["folders"]["nf"]["errorCode"] == MISSING

    no_org = await permissions(api, ws, organizationId="none", userIds=["u1"])
    assert no_org["u1"]["organization"]["none"]["errorCode"] == MISSING


async def test_get_of_a_folder_or_document_that_does_not_exist_is_not_found_with_the_map(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("missing-doc@example.com")
    await grant(api, ws, "u1", organization("o"), document("o", "d"))

    response = await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "o", "userIds": ["u1"], "documentIds": ["d", "nope"]},
        headers=ws.key_headers,
    )
    no_folder = await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "o", "userIds": ["u1"], "folderIds": ["nf"]},
        headers=ws.key_headers,
    )

    error = assert_failure(response, 404, "NOT_FOUND")
    assert error["message"] == "Folder or document does not exist"
    documents = error["details"]["u1"]["documents"]
    assert documents["d"]["accessRole"] == "editor"
    assert documents["nope"]["errorCode"] == MISSING
    assert error["details"]["u1"]["organization"] == {"o": {"accessRole": "editor"}}
    assert_failure(no_folder, 404, "NOT_FOUND")


async def test_another_workspace_sees_nothing(api: ApiClient) -> None:
    owner = await api.create_workspace("permowner@example.com")
    intruder = await api.create_workspace("permintruder@example.com")
    await grant(api, owner, "u1", organization("o"), document("o", "d"))

    got = await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "o", "userIds": ["u1"], "documentIds": ["d"]},
        headers=intruder.key_headers,
    )
    error = assert_failure(got, 404, "NOT_FOUND")
    assert error["details"] == {"u1": {"error": "User does not exist.", "errorCode": MISSING}}
    removed = await api.post(
        "/v2/auth/permissions/remove",
        {"userId": "u1", "permissions": {"resources": [organization("o")]}},
        headers=intruder.key_headers,
    )
    assert removed.status == 200, removed.body
    still = await permissions(api, owner, organizationId="o", userIds=["u1"], documentIds=["d"])
    assert still["u1"]["organization"] == {"o": {"accessRole": "editor"}}
