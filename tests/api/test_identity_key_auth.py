"""API-key-level authentication: the headers it needs, wrong or foreign credentials, tenancy
between workspaces, per-key rate limits, and header brands."""

from __future__ import annotations

import pytest

from redline.testing.api import ApiClient, StartApi, assert_failure, issue_paths
from tests.api.credentials_support import (
    RATE_LIMIT_MESSAGE,
    create_key,
    key_headers,
)

# tenancy ------------------------------------------------------------------------------------------


async def test_another_workspace_cannot_read_a_keys_auth_tokens(api: ApiClient) -> None:
    victim = await api.create_workspace("victim@example.com")
    intruder = await api.create_workspace("intruder@example.com")

    response = await api.post(
        "/v2/workspace/authtokens/get",
        {"apiKey": victim.api_key},
        headers=intruder.workspace_headers,
    )

    error = assert_failure(response, 404, "NOT_FOUND")
    assert victim.auth_token not in str(error)


async def test_another_workspace_cannot_reset_a_keys_auth_token(api: ApiClient) -> None:
    victim = await api.create_workspace("victim@example.com")
    intruder = await api.create_workspace("intruder@example.com")

    response = await api.post(
        "/v2/workspace/authtoken/reset",
        {"apiKey": victim.api_key},
        headers=intruder.workspace_headers,
    )

    assert_failure(response, 404, "NOT_FOUND")
    still_works = await api.post("/v2/workspace/domains/get", {}, headers=victim.key_headers)
    assert still_works.status == 200, still_works.body


async def test_another_workspace_cannot_rename_a_key(api: ApiClient) -> None:
    victim = await api.create_workspace("victim@example.com")
    intruder = await api.create_workspace("intruder@example.com")
    original_name = victim.body["apiKeyList"][victim.api_key]["apiKeyName"]

    response = await api.post(
        "/v2/workspace/apikey/update",
        {"apiKey": victim.api_key, "apiKeyName": "Hijacked"},
        headers=intruder.workspace_headers,
    )

    assert_failure(response, 404, "NOT_FOUND")
    workspace = await api.post("/v2/workspace/get", {}, headers=victim.workspace_headers)
    assert workspace.data["apiKeyList"][victim.api_key]["apiKeyName"] == original_name


async def test_api_key_listing_shows_only_the_callers_keys(api: ApiClient) -> None:
    first = await api.create_workspace("first@example.com")
    await create_key(api, first, apiKeyName="First's second key")
    second = await api.create_workspace("second@example.com")

    listed = await api.post("/v2/workspace/apikeys/get", {}, headers=second.workspace_headers)

    assert listed.status == 200, listed.body
    assert [k["id"] for k in listed.data] == [second.api_key]


async def test_api_key_with_another_workspaces_auth_token_is_unauthenticated(
    api: ApiClient,
) -> None:
    first = await api.create_workspace("first@example.com")
    second = await api.create_workspace("second@example.com")

    response = await api.post(
        "/v2/workspace/domains/get", {}, headers=key_headers(first.api_key, second.auth_token)
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


# API-key-level authentication ---------------------------------------------------------------------


async def test_api_key_level_without_api_key_header_names_the_header(api: ApiClient) -> None:
    ws = await api.create_workspace("nokey@example.com")

    response = await api.post(
        "/v2/workspace/domains/get", {}, headers={"x-redline-auth-token": ws.auth_token}
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["headers.x-redline-api-key"]
    assert "x-redline-api-key" in error["message"]


async def test_api_key_level_without_auth_token_header_names_the_header(api: ApiClient) -> None:
    ws = await api.create_workspace("notoken@example.com")

    response = await api.post(
        "/v2/workspace/domains/get", {}, headers={"x-redline-api-key": ws.api_key}
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["headers.x-redline-auth-token"]


async def test_api_key_level_with_a_wrong_token_is_unauthenticated(api: ApiClient) -> None:
    ws = await api.create_workspace("wrongtoken@example.com")

    response = await api.post(
        "/v2/workspace/domains/get", {}, headers=key_headers(ws.api_key, ws.auth_token + "x")
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_api_key_level_with_an_unknown_key_is_unauthenticated(api: ApiClient) -> None:
    ws = await api.create_workspace("unknownkey@example.com")

    response = await api.post(
        "/v2/workspace/domains/get", {}, headers=key_headers("no-such-key", ws.auth_token)
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_workspace_credentials_do_not_open_api_key_level_endpoints(api: ApiClient) -> None:
    ws = await api.create_workspace("levels@example.com")

    response = await api.post("/v2/workspace/domains/get", {}, headers=ws.workspace_headers)

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["headers.x-redline-api-key"]


async def test_api_key_level_is_rate_limited_per_key(start_api: StartApi) -> None:
    api = await start_api(rate_limit_general=3)
    busy = await api.create_workspace("busy@example.com")
    calm = await api.create_workspace("calm@example.com")
    for _ in range(3):
        allowed = await api.post("/v2/workspace/domains/get", {}, headers=busy.key_headers)
        assert allowed.status == 200, allowed.body

    refused = await api.post("/v2/workspace/domains/get", {}, headers=busy.key_headers)
    other_key = await api.post("/v2/workspace/domains/get", {}, headers=calm.key_headers)

    error = assert_failure(refused, 429, "RESOURCE_EXHAUSTED")
    assert error["message"] == RATE_LIMIT_MESSAGE
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert other_key.status == 200, other_key.body


# header brands ------------------------------------------------------------------------------------


@pytest.fixture
async def branded_api(start_api: StartApi) -> ApiClient:
    return await start_api(header_brands=["redline", "acme"])


async def test_extra_brand_headers_work_at_api_key_level(branded_api: ApiClient) -> None:
    ws = await branded_api.create_workspace("brand@example.com")

    response = await branded_api.post(
        "/v2/workspace/domains/get",
        {},
        headers={"x-acme-api-key": ws.api_key, "x-acme-auth-token": ws.auth_token},
    )

    assert response.status == 200, response.body
    assert response.data == {"allowedDomains": [], "domains": []}


async def test_extra_brand_rejects_a_wrong_token_like_the_primary_brand(
    branded_api: ApiClient,
) -> None:
    ws = await branded_api.create_workspace("brandwrong@example.com")

    response = await branded_api.post(
        "/v2/workspace/domains/get",
        {},
        headers={"x-acme-api-key": ws.api_key, "x-acme-auth-token": "wrong"},
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_extra_brand_headers_work_at_workspace_level(branded_api: ApiClient) -> None:
    ws = await branded_api.create_workspace("brandws@example.com")

    response = await branded_api.post(
        "/v2/workspace/get",
        {},
        headers={"x-acme-workspace-id": ws.id, "x-acme-workspace-auth-token": ws.token},
    )

    assert response.status == 200, response.body
    assert response.data["id"] == ws.id


async def test_unconfigured_brand_headers_are_not_read(branded_api: ApiClient) -> None:
    ws = await branded_api.create_workspace("otherbrand@example.com")

    response = await branded_api.post(
        "/v2/workspace/domains/get",
        {},
        headers={"x-other-api-key": ws.api_key, "x-other-auth-token": ws.auth_token},
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["headers.x-redline-api-key"]


# the hosted SDK's workspace-level headers --------------------------------------------------------


@pytest.fixture
async def velt_api(start_api: StartApi) -> ApiClient:
    return await start_api(header_brands=["redline", "velt"])


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/v2/workspace/get", {}),
        ("/v2/workspace/apikeys/get", {}),
        ("/v2/workspace/authtokens/get", None),
    ],
)
async def test_sdk_workspace_token_in_the_auth_token_header_opens_workspace_endpoints(
    velt_api: ApiClient, path: str, data: dict[str, str] | None
) -> None:
    ws = await velt_api.create_workspace("sdkws@example.com")
    # The body goes out as {"data": ...}, as the SDK wraps it. The SDK sends the API key
    # too, and its workspace auth token under x-velt-auth-token.
    sdk_headers = {
        "x-velt-api-key": ws.api_key,
        "x-velt-auth-token": ws.token,
        "x-velt-workspace-id": ws.id,
    }

    response = await velt_api.post(
        path, {"apiKey": ws.api_key} if data is None else data, headers=sdk_headers
    )

    assert response.status == 200, response.body


async def test_sdk_headers_can_create_an_api_key(velt_api: ApiClient) -> None:
    ws = await velt_api.create_workspace("sdkkey@example.com")
    sdk_headers = {
        "x-velt-api-key": ws.api_key,
        "x-velt-auth-token": ws.token,
        "x-velt-workspace-id": ws.id,
    }

    response = await velt_api.post(
        "/v2/workspace/apikey/create",
        {"apiKeyName": "sdk", "type": "testing"},
        headers=sdk_headers,
    )

    assert response.status == 200, response.body


async def test_an_api_keys_auth_token_does_not_open_workspace_endpoints(
    velt_api: ApiClient,
) -> None:
    ws = await velt_api.create_workspace("keytoken@example.com")

    response = await velt_api.post(
        "/v2/workspace/get",
        {},
        headers={
            "x-velt-api-key": ws.api_key,
            "x-velt-auth-token": ws.auth_token,
            "x-velt-workspace-id": ws.id,
        },
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_another_workspaces_token_in_the_auth_token_header_is_refused(
    velt_api: ApiClient,
) -> None:
    victim = await velt_api.create_workspace("victimsdk@example.com")
    intruder = await velt_api.create_workspace("intrudersdk@example.com")

    response = await velt_api.post(
        "/v2/workspace/get",
        {},
        headers={"x-velt-workspace-id": victim.id, "x-velt-auth-token": intruder.token},
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_the_workspace_auth_token_header_wins_over_the_auth_token_header(
    velt_api: ApiClient,
) -> None:
    ws = await velt_api.create_workspace("bothtokens@example.com")

    response = await velt_api.post(
        "/v2/workspace/get",
        {},
        headers={
            "x-velt-workspace-id": ws.id,
            "x-velt-workspace-auth-token": ws.token,
            "x-velt-auth-token": ws.auth_token,
        },
    )

    assert response.status == 200, response.body
    assert response.data["id"] == ws.id
