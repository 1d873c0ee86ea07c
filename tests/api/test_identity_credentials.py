"""API keys and auth tokens: creation, listing, renaming, reset and revocation."""

from __future__ import annotations

from typing import Any

import nats
import pytest

from redline.bus import rpc
from redline.envelope.errors import Unauthenticated
from redline.proto.rpc import AuthVerified, VerifyApiKey
from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.credentials_support import (
    create_key,
    key_headers,
)

# creating keys ------------------------------------------------------------------------------------


async def test_create_production_key_without_auth_token(api: ApiClient) -> None:
    ws = await api.create_workspace("keys@example.com")

    created = await api.post(
        "/v2/workspace/apikey/create",
        {
            "apiKeyName": "Production",
            "type": "production",
            "allowedDomains": ["app.example.com", "*.example.org"],
            "createAuthToken": False,
        },
        headers=ws.workspace_headers,
    )

    assert created.status == 200, created.body
    assert created.result["status"] == "success"
    assert set(created.data) == {"apiKey"}
    new_key = created.data["apiKey"]
    workspace = await api.post("/v2/workspace/get", {}, headers=ws.workspace_headers)
    assert workspace.data["apiKeyList"][new_key] == {
        "apiKeyName": "Production",
        "id": new_key,
        "type": "production",
    }
    tokens = await api.post(
        "/v2/workspace/authtokens/get", {"apiKey": new_key}, headers=ws.workspace_headers
    )
    assert tokens.status == 200, tokens.body
    assert tokens.data == {"apiKey": new_key, "authTokens": []}


async def test_created_key_with_auth_token_authenticates_and_lists_its_domains(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("domains@example.com")

    created = await create_key(
        api, ws, apiKeyName="Web", allowedDomains=["app.example.com", "*.example.org"]
    )

    assert set(created) == {"apiKey", "authToken"}
    domains = await api.post(
        "/v2/workspace/domains/get",
        {},
        headers=key_headers(created["apiKey"], created["authToken"]),
    )
    assert domains.status == 200, domains.body
    assert sorted(domains.data["allowedDomains"]) == ["*.example.org", "app.example.com"]


async def test_create_key_takes_the_hosted_settings_and_applies_its_own(api: ApiClient) -> None:
    ws = await api.create_workspace("hostedkey@example.com")
    other = await api.create_workspace("hostedkey-other@example.com")
    created = await create_key(
        api,
        ws,
        ownerEmail="hostedkey@example.com",
        type="production",
        persistenceDBRegion="europe-west3",
        allowedDomains=["app.example.com"],
        addLocalHostToAllowedDomains=True,
        useEmailService=True,
        emailServiceConfig={"type": "default", "fromCompany": "Acme"},
        setDefaultEmailTriggers=True,
        enablePrivateComments=True,
        requireAutoOrgUser=False,
        planInfo={"type": "pro"},
        platform="web",
    )
    headers = key_headers(created["apiKey"], created["authToken"])
    elsewhere = await api.post(
        "/v2/workspace/apikey/create",
        {"type": "testing", "workspaceId": other.id},
        headers=ws.workspace_headers,
    )

    domains = await api.post("/v2/workspace/domains/get", {}, headers=headers)
    email = await api.post("/v2/workspace/emailconfig/get", {}, headers=headers)
    app = await api.post("/v2/workspace/apikeyconfig/get", {}, headers=headers)
    assert sorted(domains.data["allowedDomains"]) == ["app.example.com", "localhost"], domains.body
    assert email.data["useEmailService"] is True, email.body
    assert email.data["emailServiceConfig"]["fromCompany"] == "Acme"
    assert email.data["emailServiceConfig"]["triggers"]
    assert app.data["isPrivateCommentsEnabled"] is True, app.body
    assert app.data["requireAutoOrgUser"] is False
    assert issue_paths(assert_failure(elsewhere, 400, "INVALID_ARGUMENT")) == ["data.workspaceId"]


async def test_create_key_with_an_unknown_type_names_the_field(api: ApiClient) -> None:
    ws = await api.create_workspace("badtype@example.com")

    response = await api.post(
        "/v2/workspace/apikey/create", {"type": "staging"}, headers=ws.workspace_headers
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.type"]


async def test_create_key_needs_workspace_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace("keyauth@example.com")

    response = await api.post(
        "/v2/workspace/apikey/create",
        {},
        headers={"x-redline-workspace-id": ws.id, "x-redline-workspace-auth-token": "wrong"},
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


# listing keys -------------------------------------------------------------------------------------


async def test_list_api_keys_pages_through_every_key_in_creation_order(api: ApiClient) -> None:
    ws = await api.create_workspace("pages@example.com")
    second = await create_key(api, ws, apiKeyName="Second", type="production")
    third = await create_key(api, ws, apiKeyName="Third")
    expected = [
        {"apiKeyName": ws.body["apiKeyList"][ws.api_key]["apiKeyName"], "id": ws.api_key},
        {"apiKeyName": "Second", "id": second["apiKey"]},
        {"apiKeyName": "Third", "id": third["apiKey"]},
    ]

    seen: list[dict[str, Any]] = []
    page_token = None
    for page_number in range(3):
        request: dict[str, Any] = {"pageSize": 1}
        if page_token is not None:
            request["pageToken"] = page_token
        page = await api.post("/v2/workspace/apikeys/get", request, headers=ws.workspace_headers)
        assert page.status == 200, page.body
        assert len(page.data) == 1
        seen.extend(page.data)
        if page_number < 2:
            page_token = page.result["nextPageToken"]
            assert isinstance(page_token, str)
            assert page_token
        else:
            assert "nextPageToken" not in page.result

    assert [{"apiKeyName": k["apiKeyName"], "id": k["id"]} for k in seen] == expected
    assert [k["type"] for k in seen] == ["testing", "production", "testing"]


async def test_list_api_keys_in_one_page_has_no_next_token(api: ApiClient) -> None:
    ws = await api.create_workspace("onepage@example.com")
    await create_key(api, ws, apiKeyName="Other")

    page = await api.post("/v2/workspace/apikeys/get", {}, headers=ws.workspace_headers)

    assert page.status == 200, page.body
    assert len(page.data) == 2
    assert "nextPageToken" not in page.result


async def test_list_api_keys_filtered_to_named_keys(api: ApiClient) -> None:
    ws = await api.create_workspace("filtered@example.com")
    other_ws = await api.create_workspace("filtered-other@example.com")
    second = await create_key(api, ws, apiKeyName="Second")

    named = await api.post(
        "/v2/workspace/apikeys/get",
        {"apiKeys": [second["apiKey"], other_ws.api_key, "no-such-key"]},
        headers=ws.workspace_headers,
    )

    assert named.status == 200, named.body
    assert [k["id"] for k in named.data] == [second["apiKey"]]


async def test_page_token_of_another_workspace_is_invalid(api: ApiClient) -> None:
    owner = await api.create_workspace("tokenowner@example.com")
    await create_key(api, owner, apiKeyName="Extra")
    other = await api.create_workspace("tokenthief@example.com")
    await create_key(api, other, apiKeyName="Extra")
    first_page = await api.post(
        "/v2/workspace/apikeys/get", {"pageSize": 1}, headers=owner.workspace_headers
    )
    owner_token = first_page.result["nextPageToken"]

    response = await api.post(
        "/v2/workspace/apikeys/get",
        {"pageSize": 1, "pageToken": owner_token},
        headers=other.workspace_headers,
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.pageToken"]


@pytest.mark.parametrize("tamper", ["change_one_char", "truncate", "garbage"])
async def test_tampered_page_token_is_invalid(api: ApiClient, tamper: str) -> None:
    ws = await api.create_workspace("tamper@example.com")
    await create_key(api, ws, apiKeyName="Extra")
    first_page = await api.post(
        "/v2/workspace/apikeys/get", {"pageSize": 1}, headers=ws.workspace_headers
    )
    token: str = first_page.result["nextPageToken"]
    # A character in the middle: the last one may carry only base64 padding bits.
    middle = len(token) // 2
    changed = "A" if token[middle] != "A" else "B"
    tampered = {
        "change_one_char": token[:middle] + changed + token[middle + 1 :],
        "truncate": token[: len(token) // 2],
        "garbage": "not a page token!",
    }[tamper]

    response = await api.post(
        "/v2/workspace/apikeys/get",
        {"pageSize": 1, "pageToken": tampered},
        headers=ws.workspace_headers,
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.pageToken"]


# renaming keys ------------------------------------------------------------------------------------


async def test_rename_api_key_is_visible_in_the_workspace(api: ApiClient) -> None:
    ws = await api.create_workspace("rename@example.com")

    renamed = await api.post(
        "/v2/workspace/apikey/update",
        {"apiKey": ws.api_key, "apiKeyName": "Renamed"},
        headers=ws.workspace_headers,
    )

    assert renamed.status == 200, renamed.body
    assert renamed.result["status"] == "success"
    assert renamed.data is None
    workspace = await api.post("/v2/workspace/get", {}, headers=ws.workspace_headers)
    assert workspace.data["apiKeyList"][ws.api_key]["apiKeyName"] == "Renamed"
    listed = await api.post("/v2/workspace/apikeys/get", {}, headers=ws.workspace_headers)
    assert [k["apiKeyName"] for k in listed.data] == ["Renamed"]


async def test_rename_unknown_api_key_is_not_found(api: ApiClient) -> None:
    ws = await api.create_workspace("renameunknown@example.com")

    response = await api.post(
        "/v2/workspace/apikey/update",
        {"apiKey": "no-such-key", "apiKeyName": "Whatever"},
        headers=ws.workspace_headers,
    )

    assert_failure(response, 404, "NOT_FOUND")


# auth tokens --------------------------------------------------------------------------------------


async def test_auth_tokens_of_a_key_list_the_token_and_its_domains(api: ApiClient) -> None:
    ws = await api.create_workspace("tokens@example.com")
    created = await create_key(api, ws, apiKeyName="Web", allowedDomains=["a.example.com"])

    tokens = await api.post(
        "/v2/workspace/authtokens/get", {"apiKey": created["apiKey"]}, headers=ws.workspace_headers
    )

    assert tokens.status == 200, tokens.body
    assert tokens.data["apiKey"] == created["apiKey"]
    [token] = tokens.data["authTokens"]
    assert set(token) == {"token", "name", "domains"}
    assert token["token"] == created["authToken"]
    assert token["name"] == "Default Auth Token"
    assert token["domains"] == ["a.example.com"]


async def test_auth_tokens_of_an_unknown_key_are_not_found(api: ApiClient) -> None:
    ws = await api.create_workspace("tokensunknown@example.com")

    response = await api.post(
        "/v2/workspace/authtokens/get", {"apiKey": "no-such-key"}, headers=ws.workspace_headers
    )

    assert_failure(response, 404, "NOT_FOUND")


async def test_reset_auth_token_rejects_the_old_token_on_the_very_next_request(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("reset@example.com")
    # A successful check first, so a cached verification would be there to go stale.
    before = await api.post("/v2/workspace/domains/get", {}, headers=ws.key_headers)
    assert before.status == 200, before.body

    reset = await api.post(
        "/v2/workspace/authtoken/reset", {"apiKey": ws.api_key}, headers=ws.workspace_headers
    )

    assert reset.status == 200, reset.body
    assert reset.data["apiKey"] == ws.api_key
    new_token = reset.data["newAuthToken"]
    assert set(new_token) == {"token", "name", "domains"}
    assert new_token["name"] == "Default Auth Token"
    assert new_token["token"] != ws.auth_token
    old = await api.post("/v2/workspace/domains/get", {}, headers=ws.key_headers)
    assert_failure(old, 401, "UNAUTHENTICATED")
    new = await api.post(
        "/v2/workspace/domains/get", {}, headers=key_headers(ws.api_key, new_token["token"])
    )
    assert new.status == 200, new.body
    tokens = await api.post(
        "/v2/workspace/authtokens/get", {"apiKey": ws.api_key}, headers=ws.workspace_headers
    )
    assert [t["token"] for t in tokens.data["authTokens"]] == [new_token["token"]]


async def test_reset_auth_token_carries_the_keys_domains(api: ApiClient) -> None:
    ws = await api.create_workspace("resetdomains@example.com")
    created = await create_key(api, ws, allowedDomains=["x.example.com"])

    reset = await api.post(
        "/v2/workspace/authtoken/reset",
        {"apiKey": created["apiKey"]},
        headers=ws.workspace_headers,
    )

    assert reset.status == 200, reset.body
    assert reset.data["newAuthToken"]["domains"] == ["x.example.com"]


async def test_reset_auth_token_also_revokes_the_old_token_for_other_services(
    api: ApiClient, nats_url: str
) -> None:
    ws = await api.create_workspace("resetrpc@example.com")
    nc = await nats.connect(nats_url)
    try:
        verified = await rpc.call(
            nc, "rpc.identity.auth.verify", VerifyApiKey(ws.api_key, ws.auth_token), AuthVerified
        )
        assert verified.workspaceId == ws.id
        assert verified.apiKey == ws.api_key

        reset = await api.post(
            "/v2/workspace/authtoken/reset", {"apiKey": ws.api_key}, headers=ws.workspace_headers
        )
        assert reset.status == 200, reset.body

        with pytest.raises(Unauthenticated):
            await rpc.call(
                nc,
                "rpc.identity.auth.verify",
                VerifyApiKey(ws.api_key, ws.auth_token),
                AuthVerified,
            )
        new_token = reset.data["newAuthToken"]["token"]
        verified_new = await rpc.call(
            nc, "rpc.identity.auth.verify", VerifyApiKey(ws.api_key, new_token), AuthVerified
        )
        assert verified_new.workspaceId == ws.id
    finally:
        await nc.drain()


async def test_reset_auth_token_of_an_unknown_key_is_not_found(api: ApiClient) -> None:
    ws = await api.create_workspace("resetunknown@example.com")

    response = await api.post(
        "/v2/workspace/authtoken/reset", {"apiKey": "no-such-key"}, headers=ws.workspace_headers
    )

    assert_failure(response, 404, "NOT_FOUND")
