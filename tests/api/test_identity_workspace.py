"""Workspace creation (who may, what comes back, limits) and workspace-level authentication."""

from __future__ import annotations

import pytest

from redline.testing.api import ApiClient, StartApi, assert_failure, issue_paths

ADMIN_TOKEN = "operator-secret-for-tests"
RATE_LIMIT_MESSAGE = "Rate limit exceeded. Try again after 1 minute."


@pytest.fixture
async def closed_signup_api(start_api: StartApi) -> ApiClient:
    return await start_api(open_signup=False, admin_token=ADMIN_TOKEN)


# creation ----------------------------------------------------------------------------------------


async def test_open_signup_creates_a_workspace_in_the_document_shape(api: ApiClient) -> None:
    created = await api.post(
        "/v2/workspace/create",
        {
            "ownerEmail": "ada@example.com",
            "name": "Ada",
            "workspaceName": "Analytical Engines",
            "avatar": "https://example.com/ada.png",
        },
    )

    assert created.status == 200, created.body
    assert created.result["status"] == "success"
    assert created.result["message"] == "Workspace created successfully"
    data = created.data
    assert set(data) == {"id", "name", "owner", "authToken", "apiKeyList"}
    assert data["name"] == "Analytical Engines"
    assert set(data["owner"]) == {"email", "id", "name", "avatar"}
    assert data["owner"]["email"] == "ada@example.com"
    assert data["owner"]["name"] == "Ada"
    assert data["owner"]["avatar"] == "https://example.com/ada.png"
    assert data["owner"]["id"]
    assert isinstance(data["authToken"], str)
    assert len(data["authToken"]) >= 22
    assert isinstance(data["apiKeyList"], dict)
    [(key_id, key)] = data["apiKeyList"].items()
    # The first key's name comes from the address, as the reference's does.
    assert key == {"apiKeyName": "Ada Test API Key", "id": key_id, "type": "testing"}


async def test_created_workspace_reads_back_identically_with_its_credentials(
    api: ApiClient,
) -> None:
    created = await api.post("/v2/workspace/create", {"ownerEmail": "grace@example.com"})
    headers = {
        "x-redline-workspace-id": created.data["id"],
        "x-redline-workspace-auth-token": created.data["authToken"],
    }

    got = await api.post("/v2/workspace/get", {}, headers=headers)

    assert got.status == 200, got.body
    assert got.result["status"] == "success"
    assert got.data == created.data


async def test_workspace_name_and_owner_name_default_from_the_email(api: ApiClient) -> None:
    created = await api.post("/v2/workspace/create", {"ownerEmail": "linus@example.com"})

    assert created.status == 200, created.body
    assert created.data["owner"]["name"] == "linus@example.com"
    assert created.data["owner"]["avatar"] == ""
    assert created.data["name"] == "linus@example.com workspace"


async def test_the_workspace_name_defaults_from_the_owners_name(api: ApiClient) -> None:
    by_name = await api.post(
        "/v2/workspace/create", {"ownerEmail": "ken@example.com", "name": "Ken Thompson"}
    )
    by_owner_name = await api.post(
        "/v2/workspace/create", {"ownerEmail": "dmr@example.com", "ownerName": "Dennis"}
    )

    assert by_name.status == 200, by_name.body
    assert by_name.data["owner"]["name"] == "Ken Thompson"
    assert by_name.data["name"] == "Ken Thompson workspace"
    assert by_owner_name.data["owner"]["name"] == "Dennis"
    assert by_owner_name.data["name"] == "Dennis workspace"


async def test_workspace_name_names_the_workspace(api: ApiClient) -> None:
    created = await api.post(
        "/v2/workspace/create", {"ownerEmail": "ken@example.com", "workspaceName": "Bell Labs"}
    )

    assert created.status == 200, created.body
    assert created.data["name"] == "Bell Labs"


async def test_the_sdks_email_verification_window_is_taken_within_its_bounds(
    api: ApiClient,
) -> None:
    kept = await api.post(
        "/v2/workspace/create", {"ownerEmail": "ada@example.com", "expiresInMs": 3_600_000}
    )
    too_short = await api.post(
        "/v2/workspace/create", {"ownerEmail": "ada2@example.com", "expiresInMs": 1_000}
    )

    assert kept.status == 200, kept.body
    assert issue_paths(assert_failure(too_short, 400, "INVALID_ARGUMENT")) == ["data.expiresInMs"]


async def test_each_created_workspace_gets_its_own_id_token_and_key(api: ApiClient) -> None:
    first = await api.create_workspace("one@example.com")
    second = await api.create_workspace("two@example.com")

    assert first.id != second.id
    assert first.token != second.token
    assert first.api_key != second.api_key
    assert first.auth_token != second.auth_token


async def test_create_with_a_malformed_email_names_owner_email(api: ApiClient) -> None:
    response = await api.post("/v2/workspace/create", {"ownerEmail": "not-an-email"})

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.ownerEmail"]


async def test_create_without_owner_email_names_owner_email(api: ApiClient) -> None:
    response = await api.post("/v2/workspace/create", {"name": "Nobody's"})

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.ownerEmail"]
    assert error["details"]["issues"][0]["code"] == "missing_field"


async def test_closed_signup_without_admin_token_is_unauthenticated(
    closed_signup_api: ApiClient,
) -> None:
    response = await closed_signup_api.post(
        "/v2/workspace/create", {"ownerEmail": "mallory@example.com"}
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_closed_signup_with_a_wrong_admin_token_is_unauthenticated(
    closed_signup_api: ApiClient,
) -> None:
    response = await closed_signup_api.post(
        "/v2/workspace/create",
        {"ownerEmail": "mallory@example.com"},
        headers={"x-redline-admin-token": ADMIN_TOKEN + "x"},
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_closed_signup_with_the_admin_token_creates_the_workspace(
    closed_signup_api: ApiClient,
) -> None:
    response = await closed_signup_api.post(
        "/v2/workspace/create",
        {"ownerEmail": "operator@example.com"},
        headers={"x-redline-admin-token": ADMIN_TOKEN},
    )

    assert response.status == 200, response.body
    assert response.data["owner"]["email"] == "operator@example.com"
    [key] = response.data["apiKeyList"].values()
    assert key["type"] == "testing"


async def test_closed_signup_without_a_configured_admin_token_refuses_everyone(
    start_api: StartApi,
) -> None:
    api = await start_api(open_signup=False)

    response = await api.post(
        "/v2/workspace/create",
        {"ownerEmail": "someone@example.com"},
        headers={"x-redline-admin-token": ""},
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_signup_is_rate_limited_per_client_address(start_api: StartApi) -> None:
    api = await start_api(rate_limit_signup=2)
    for n in range(2):
        allowed = await api.post("/v2/workspace/create", {"ownerEmail": f"u{n}@example.com"})
        assert allowed.status == 200, allowed.body

    refused = await api.post("/v2/workspace/create", {"ownerEmail": "u2@example.com"})

    error = assert_failure(refused, 429, "RESOURCE_EXHAUSTED")
    assert error["message"] == RATE_LIMIT_MESSAGE
    assert 1 <= int(refused.headers["Retry-After"]) <= 60


# workspace-level authentication -----------------------------------------------------------------


async def test_get_workspace_with_its_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace("reader@example.com")

    got = await api.post("/v2/workspace/get", {}, headers=ws.workspace_headers)

    assert got.status == 200, got.body
    assert got.result["message"]
    assert got.data["id"] == ws.id
    assert got.data["authToken"] == ws.token
    assert list(got.data["apiKeyList"]) == [ws.api_key]


async def test_get_workspace_accepts_an_empty_body(api: ApiClient) -> None:
    ws = await api.create_workspace("empty@example.com")

    got = await api.post("/v2/workspace/get", raw=b"", headers=ws.workspace_headers)

    assert got.status == 200, got.body
    assert got.data["id"] == ws.id


async def test_get_workspace_without_workspace_id_header_is_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace("noid@example.com")

    response = await api.post(
        "/v2/workspace/get", {}, headers={"x-redline-workspace-auth-token": ws.token}
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["headers.x-redline-workspace-id"]


async def test_get_workspace_without_token_header_is_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace("notoken@example.com")

    response = await api.post("/v2/workspace/get", {}, headers={"x-redline-workspace-id": ws.id})

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["headers.x-redline-workspace-auth-token"]


async def test_get_workspace_with_a_blank_token_header_is_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace("blank@example.com")

    response = await api.post(
        "/v2/workspace/get",
        {},
        headers={"x-redline-workspace-id": ws.id, "x-redline-workspace-auth-token": "  "},
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["headers.x-redline-workspace-auth-token"]


async def test_get_workspace_with_a_wrong_token_is_unauthenticated(api: ApiClient) -> None:
    ws = await api.create_workspace("wrong@example.com")

    response = await api.post(
        "/v2/workspace/get",
        {},
        headers={"x-redline-workspace-id": ws.id, "x-redline-workspace-auth-token": "nope"},
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_get_workspace_with_another_workspaces_token_is_unauthenticated(
    api: ApiClient,
) -> None:
    mine = await api.create_workspace("mine@example.com")
    theirs = await api.create_workspace("theirs@example.com")

    response = await api.post(
        "/v2/workspace/get",
        {},
        headers={"x-redline-workspace-id": theirs.id, "x-redline-workspace-auth-token": mine.token},
    )

    assert_failure(response, 401, "UNAUTHENTICATED")


async def test_unknown_workspace_id_is_unauthenticated_not_a_not_found_existence_oracle(
    api: ApiClient,
) -> None:
    # Answering NOT_FOUND here would tell an unauthenticated caller which workspace ids exist.
    ws = await api.create_workspace("oracle@example.com")
    known_id_wrong_token = await api.post(
        "/v2/workspace/get",
        {},
        headers={"x-redline-workspace-id": ws.id, "x-redline-workspace-auth-token": "guess"},
    )

    unknown_id = await api.post(
        "/v2/workspace/get",
        {},
        headers={
            "x-redline-workspace-id": "no-such-workspace",
            "x-redline-workspace-auth-token": ws.token,
        },
    )

    unknown_error = assert_failure(unknown_id, 401, "UNAUTHENTICATED")
    known_error = assert_failure(known_id_wrong_token, 401, "UNAUTHENTICATED")
    assert unknown_error == known_error


async def test_api_key_credentials_do_not_open_workspace_level_endpoints(api: ApiClient) -> None:
    ws = await api.create_workspace("levels@example.com")

    response = await api.post("/v2/workspace/get", {}, headers=ws.key_headers)

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["headers.x-redline-workspace-id"]


async def test_workspace_level_endpoints_are_rate_limited_per_workspace(
    start_api: StartApi,
) -> None:
    api = await start_api(rate_limit_general=3)
    ws = await api.create_workspace("busy@example.com")  # one workspace-level call
    other = await api.create_workspace("calm@example.com")
    for _ in range(2):
        allowed = await api.post("/v2/workspace/get", {}, headers=ws.workspace_headers)
        assert allowed.status == 200, allowed.body

    refused = await api.post("/v2/workspace/get", {}, headers=ws.workspace_headers)
    other_workspace = await api.post("/v2/workspace/get", {}, headers=other.workspace_headers)

    error = assert_failure(refused, 429, "RESOURCE_EXHAUSTED")
    assert error["message"] == RATE_LIMIT_MESSAGE
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert other_workspace.status == 200, other_workspace.body
