"""Workspace-level calls of the official Python SDK: /v2/workspace/apikey/copy (one key's
configuration onto another) and /v2/workspace/authtoken/ensure."""

from __future__ import annotations

import asyncpg

from redline.testing.api import ApiClient, StartApi, Workspace, assert_failure, issue_paths
from tests.api.config_support import ok

CONFIG_READS = (
    "/v2/workspace/domains/get",
    "/v2/workspace/webhookconfig/get",
    "/v2/workspace/advancedwebhookconfig/get",
    "/v2/workspace/activityconfig/get",
    "/v2/workspace/apikeyconfig/get",
    "/v2/workspace/permissionproviderconfig/get",
)


async def second_key(api: ApiClient, ws: Workspace) -> Workspace:
    """Another API key of the same workspace, with its auth token."""
    created = await api.post(
        "/v2/workspace/apikey/create", {"apiKeyName": "second"}, headers=ws.workspace_headers
    )
    assert created.status == 200, created.body
    key = created.data["apiKey"]
    return Workspace(ws.id, ws.token, key, created.data["authToken"], ws.body)


async def configure(api: ApiClient, ws: Workspace) -> None:
    await ok(api, ws, "/v2/workspace/domains/add", {"domains": ["copy.example.com"]})
    await ok(
        api,
        ws,
        "/v2/workspace/webhookconfig/update",
        {"useWebhookService": True, "webhookServiceConfig": {"authToken": "hook-secret"}},
    )
    await ok(
        api,
        ws,
        "/v2/workspace/activityconfig/update",
        {"activityServiceConfig": {"isEnabled": True}},
    )
    await ok(api, ws, "/v2/workspace/advancedwebhookconfig/update", {"isEnabled": True})
    await ok(
        api,
        ws,
        "/v2/workspace/apikeyconfig/update",
        {
            "requireJwtToken": True,
            "aiModelApiKey": [{"provider": "openai", "customerApiKey": "sk-copied-0123456789"}],
        },
    )
    await ok(
        api,
        ws,
        "/v2/workspace/permissionproviderconfig/update",
        {
            "usePermissionProvider": True,
            "permissionProviderConfig": {
                "permissionProviderUrl": "https://perms.example.com/check",
                "authToken": "provider-secret",
            },
        },
    )


async def test_the_target_is_configured_as_the_source(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    source = await api.create_workspace("copy@example.com")
    target = await second_key(api, source)
    await configure(api, source)
    await ok(api, target, "/v2/workspace/domains/add", {"domains": ["gone.example.com"]})

    copied = await api.post(
        "/v2/workspace/apikey/copy",
        {"sourceApiKey": source.api_key, "targetApiKey": target.api_key},
        headers=source.workspace_headers,
    )

    assert copied.status == 200, copied.body
    assert copied.data == {"sourceApiKey": source.api_key, "targetApiKey": target.api_key}
    for path in CONFIG_READS:
        assert await ok(api, target, path) == await ok(api, source, path), path
    # Sealed secrets were sealed again for the target: nothing of the source's copy is reused.
    rows = await db.fetch(
        "SELECT api_key, app->'aiModels'->'openai'->>'sealed' AS ai,"
        " permission_provider->>'authTokenSealed' AS token FROM identity.api_key_config"
        " WHERE api_key = ANY($1::text[])",
        [source.api_key, target.api_key],
    )
    assert len({r["ai"] for r in rows}) == 2
    assert len({r["token"] for r in rows}) == 2
    # The target's own credentials stay as they were.
    assert (await ok(api, target, "/v2/workspace/domains/get"))["allowedDomains"] == [
        "copy.example.com"
    ]


async def test_copying_an_unconfigured_key_returns_the_target_to_its_defaults(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("copy-defaults@example.com")
    fresh = await second_key(api, ws)
    defaults = [await ok(api, fresh, path) for path in CONFIG_READS]
    await configure(api, ws)

    copied = await api.post(
        "/v2/workspace/apikey/copy",
        {"sourceApiKey": fresh.api_key, "targetApiKey": ws.api_key},
        headers=ws.workspace_headers,
    )

    assert copied.status == 200, copied.body
    assert [await ok(api, ws, path) for path in CONFIG_READS] == defaults


async def test_keys_of_another_workspace_cannot_be_copied_from_or_to(api: ApiClient) -> None:
    a = await api.create_workspace("copy-a@example.com")
    b = await api.create_workspace("copy-b@example.com")
    b_other = await second_key(api, b)
    await configure(api, a)
    a_before = [await ok(api, a, path) for path in CONFIG_READS]

    for source, target in ((a.api_key, b.api_key), (b.api_key, a.api_key), ("ghost", b.api_key)):
        response = await api.post(
            "/v2/workspace/apikey/copy",
            {"sourceApiKey": source, "targetApiKey": target},
            headers=b.workspace_headers,
        )
        assert_failure(response, 404, "NOT_FOUND")

    assert [await ok(api, a, path) for path in CONFIG_READS] == a_before
    assert (await ok(api, b_other, "/v2/workspace/domains/get"))["allowedDomains"] == []


async def test_a_copy_needs_two_keys_and_workspace_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace("copy-checks@example.com")
    same = {"sourceApiKey": ws.api_key, "targetApiKey": ws.api_key}

    to_itself = await api.post("/v2/workspace/apikey/copy", same, headers=ws.workspace_headers)
    missing = await api.post(
        "/v2/workspace/apikey/copy", {"sourceApiKey": ws.api_key}, headers=ws.workspace_headers
    )
    with_key = await api.post("/v2/workspace/apikey/copy", same, headers=ws.key_headers)

    assert issue_paths(assert_failure(to_itself, 400, "INVALID_ARGUMENT")) == ["data.targetApiKey"]
    assert issue_paths(assert_failure(missing, 400, "INVALID_ARGUMENT")) == ["data.targetApiKey"]
    assert_failure(with_key, 400, "INVALID_ARGUMENT")


async def test_ensure_answers_the_workspace_token_to_the_sdks_headers(
    start_api: StartApi,
) -> None:
    api = await start_api(header_brands=["redline", "velt"])
    ws = await api.create_workspace("ensure@example.com")
    sdk_headers = {
        "x-velt-api-key": "",
        "x-velt-auth-token": ws.token,
        "x-velt-workspace-id": ws.id,
    }

    ensured = await api.post("/v2/workspace/authtoken/ensure", {}, headers=sdk_headers)
    wrong = await api.post(
        "/v2/workspace/authtoken/ensure",
        {},
        headers={**sdk_headers, "x-velt-auth-token": ws.auth_token},
    )
    again = await api.post("/v2/workspace/authtoken/ensure", {}, headers=ws.workspace_headers)

    assert ensured.status == 200, ensured.body
    assert ensured.data == {"workspaceId": ws.id, "authToken": ws.token}
    assert again.data == ensured.data
    assert_failure(wrong, 401, "UNAUTHENTICATED")
    stray = await api.post(
        "/v2/workspace/authtoken/ensure", {"create": True}, headers=ws.workspace_headers
    )
    assert issue_paths(assert_failure(stray, 400, "INVALID_ARGUMENT")) == ["data.create"]
