"""User tokens: generating them, using them as `x-redline-auth-token`, and every way one stops
working (expiry, tampering, another API key, another workspace, an auth token reset)."""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import time
from typing import Any

import jwt
import nats
import pytest

from redline.bus import rpc
from redline.envelope.errors import Unauthenticated
from redline.proto.rpc import AuthVerified, ResourceGrant, VerifyApiKey
from redline.proto.subjects import RPC_AUTH_VERIFY
from redline.testing.api import ApiClient, Response, StartApi, Workspace, assert_failure


def as_user(ws: Workspace, token: str, api_key: str | None = None) -> dict[str, str]:
    return {"x-redline-api-key": api_key or ws.api_key, "x-redline-auth-token": token}


async def generate(api: ApiClient, ws: Workspace, user_id: str = "u1", **data: Any) -> str:
    response = await api.post(
        "/v2/auth/generate_token", {"userId": user_id, **data}, headers=ws.key_headers
    )
    assert response.status == 200, response.body
    assert response.result["message"] == "Token generated successfully."
    token: str = response.data["token"]
    return token


async def own_permissions(api: ApiClient, ws: Workspace, token: str, **headers: str) -> Response:
    return await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "o", "userIds": ["u1"]},
        headers={**as_user(ws, token), **headers},
    )


def b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


async def test_generated_token_carries_its_claims(api: ApiClient) -> None:
    ws = await api.create_workspace("claims@example.com")
    before = int(time.time())

    token = await generate(
        api,
        ws,
        userProperties={"name": "Ada Lovelace", "email": "ada@example.com", "isAdmin": True},
        permissions={
            "resources": [
                {"type": "organization", "id": "o", "accessRole": "viewer"},
                {"type": "document", "id": "d", "organizationId": "o", "expiresAt": 4_000_000_000},
            ]
        },
    )

    assert jwt.get_unverified_header(token)["alg"] == "HS256"
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["sub"] == "u1"
    assert claims["ws"] == ws.id
    assert claims["key"] == ws.api_key
    assert claims["name"] == "Ada Lovelace"
    assert claims["email"] == "ada@example.com"
    assert claims["isAdmin"] is True
    assert claims["res"] == [
        {"type": "organization", "id": "o", "organizationId": "o", "accessRole": "viewer"},
        {
            "type": "document",
            "id": "d",
            "organizationId": "o",
            "accessRole": "editor",
            "expiresAt": 4_000_000_000,
        },
    ]
    assert before <= claims["iat"] <= int(time.time())
    assert claims["exp"] - claims["iat"] in (48 * 3600, 48 * 3600 + 1)


async def test_the_token_authenticates_as_its_user(api: ApiClient) -> None:
    ws = await api.create_workspace("works@example.com")
    token = await generate(
        api, ws, permissions={"resources": [{"type": "organization", "id": "o"}]}
    )
    # The organization must exist for its entry to be decided; a grant of someone else makes it.
    await api.post(
        "/v2/auth/permissions/add",
        {
            "user": {"userId": "u2"},
            "permissions": {"resources": [{"type": "organization", "id": "o"}]},
        },
        headers=ws.key_headers,
    )

    response = await own_permissions(api, ws, token)

    assert response.status == 200, response.body
    assert response.data == {
        "u1": {"organization": {"o": {"accessRole": "editor"}}, "folders": {}, "documents": {}}
    }


async def test_other_header_brands_carry_user_tokens_too(start_api: StartApi) -> None:
    api = await start_api(header_brands=["redline", "acme"])
    ws = await api.create_workspace("brand@example.com")
    token = await generate(api, ws)

    response = await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "o", "userIds": ["u1"]},
        headers={"x-acme-api-key": ws.api_key, "x-acme-auth-token": token},
    )

    assert response.status == 200, response.body
    assert response.data["u1"]["organization"]["o"]["errorCode"] == "does_not_exist"


async def test_generate_token_upserts_the_users_profile(api: ApiClient) -> None:
    ws = await api.create_workspace("profile@example.com")
    await generate(api, ws, userProperties={"name": "Grace Hopper", "email": "g@example.com"})

    await api.post(
        "/v2/users/add",
        {"organizationId": "o", "users": [{"userId": "u1"}]},
        headers=ws.key_headers,
    )

    listed = await api.post("/v2/users/get", {"organizationId": "o"}, headers=ws.key_headers)
    assert listed.data == [
        {
            "userId": "u1",
            "name": "Grace Hopper",
            "email": "g@example.com",
            "initial": "GH",
            "accessRole": "editor",
        }
    ]


async def test_generate_token_validates_its_request(api: ApiClient) -> None:
    ws = await api.create_workspace("tokenbad@example.com")

    for data in [
        {},
        {"userId": "u1", "userProperties": {"nickname": "x"}},
        {"userId": "u1", "permissions": {"resources": [{"type": "document", "id": "d"}]}},
    ]:
        response = await api.post("/v2/auth/generate_token", data, headers=ws.key_headers)
        assert_failure(response, 400, "INVALID_ARGUMENT")


async def test_a_user_token_cannot_mint_tokens_or_reach_configuration(api: ApiClient) -> None:
    ws = await api.create_workspace("mint@example.com")
    token = await generate(api, ws)

    minted = await api.post("/v2/auth/generate_token", {"userId": "u2"}, headers=as_user(ws, token))
    assert_failure(minted, 403, "PERMISSION_DENIED")
    domains = await api.post("/v2/workspace/domains/get", {}, headers=as_user(ws, token))
    assert_failure(domains, 403, "PERMISSION_DENIED")


# when tokens stop working ------------------------------------------------------------------------


async def test_an_expired_token_is_refused(start_api: StartApi) -> None:
    api = await start_api(user_token_ttl_s=1)
    ws = await api.create_workspace("expiry@example.com")
    token = await generate(api, ws)
    assert (await own_permissions(api, ws, token)).status == 200

    claims = jwt.decode(token, options={"verify_signature": False})
    await asyncio.sleep(max(claims["exp"] - time.time(), 0) + 0.2)

    # Refused although the first use was cached: a cached check never outlives the token.
    assert_failure(await own_permissions(api, ws, token), 401, "UNAUTHENTICATED")


async def test_tampered_tokens_are_refused(api: ApiClient) -> None:
    ws = await api.create_workspace("tamper@example.com")
    token = await generate(api, ws)
    header, payload, signature = token.split(".")
    claims = jwt.decode(token, options={"verify_signature": False})

    other_user = b64({**claims, "sub": "admin"})
    more_rights = b64(
        {
            **claims,
            "res": [
                {"type": "organization", "id": "o", "organizationId": "o", "accessRole": "editor"}
            ],
        }
    )
    # The first character: all six of its bits are signature bits.
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    unsigned = b64({"alg": "none", "typ": "JWT"}) + "." + payload + "."
    for forged in [
        f"{header}.{other_user}.{signature}",
        f"{header}.{more_rights}.{signature}",
        f"{header}.{payload}.{flipped}",
        unsigned,
        jwt.encode(claims, secrets.token_bytes(32), algorithm="HS256"),
    ]:
        assert_failure(await own_permissions(api, ws, forged), 401, "UNAUTHENTICATED")
    assert (await own_permissions(api, ws, token)).status == 200


async def test_a_token_works_only_with_the_key_it_was_issued_for(api: ApiClient) -> None:
    ws = await api.create_workspace("twokeys@example.com")
    other = await api.post(
        "/v2/workspace/apikey/create", {"apiKeyName": "Second"}, headers=ws.workspace_headers
    )
    assert other.status == 200, other.body
    second_key = other.data["apiKey"]
    token = await generate(api, ws)

    response = await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "o", "userIds": ["u1"]},
        headers=as_user(ws, token, api_key=second_key),
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_another_workspaces_token_is_refused(api: ApiClient) -> None:
    victim = await api.create_workspace("tokvictim@example.com")
    intruder = await api.create_workspace("tokintruder@example.com")
    intruder_token = await generate(api, intruder)
    victim_token = await generate(api, victim)

    with_victims_key = await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "o", "userIds": ["u1"]},
        headers=as_user(victim, intruder_token),
    )
    assert_failure(with_victims_key, 401, "UNAUTHENTICATED")
    with_intruders_key = await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "o", "userIds": ["u1"]},
        headers=as_user(intruder, victim_token),
    )
    assert_failure(with_intruders_key, 401, "UNAUTHENTICATED")


async def test_resetting_the_auth_token_revokes_earlier_user_tokens(api: ApiClient) -> None:
    ws = await api.create_workspace("reset@example.com")
    token = await generate(api, ws)
    assert (await own_permissions(api, ws, token)).status == 200
    # Revocation is to the second: a token issued in the second of the reset may survive it.
    await asyncio.sleep(1.1)

    reset = await api.post(
        "/v2/workspace/authtoken/reset", {"apiKey": ws.api_key}, headers=ws.workspace_headers
    )
    assert reset.status == 200, reset.body

    assert_failure(await own_permissions(api, ws, token), 401, "UNAUTHENTICATED")
    new_key_token = reset.data["newAuthToken"]["token"]
    fresh = await api.post(
        "/v2/auth/generate_token",
        {"userId": "u1"},
        headers={"x-redline-api-key": ws.api_key, "x-redline-auth-token": new_key_token},
    )
    await asyncio.sleep(1.1)
    assert (await own_permissions(api, ws, fresh.data["token"])).status == 200


# other services ----------------------------------------------------------------------------------


async def test_other_services_learn_the_user_and_grants_over_rpc(
    api: ApiClient, nats_url: str
) -> None:
    ws = await api.create_workspace("rpcuser@example.com")
    token = await generate(
        api,
        ws,
        permissions={
            "resources": [
                {"type": "document", "id": "d", "organizationId": "o", "accessRole": "viewer"},
                {"type": "folder", "id": "f", "organizationId": "o", "expiresAt": 1_000},
            ]
        },
    )
    nc = await nats.connect(nats_url)
    try:
        verified = await rpc.call(
            nc, RPC_AUTH_VERIFY, VerifyApiKey(ws.api_key, token), AuthVerified
        )
        assert verified.workspaceId == ws.id
        assert verified.apiKey == ws.api_key
        assert verified.userId == "u1"
        # The folder's grant had expired: only the document's reaches other services.
        assert verified.grants == (ResourceGrant("document", "d", "o", "viewer"),)
        claims = jwt.decode(token, options={"verify_signature": False})
        assert verified.expiresAt == claims["exp"]

        with pytest.raises(Unauthenticated):
            await rpc.call(
                nc, RPC_AUTH_VERIFY, VerifyApiKey(ws.api_key, token[:-3] + "abc"), AuthVerified
            )
    finally:
        await nc.drain()
