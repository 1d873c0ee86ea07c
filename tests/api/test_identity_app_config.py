"""An API key's app configuration: /v2/workspace/apikeyconfig/get|update and the older
apikeymetadata paths the official Python SDK still names."""

from __future__ import annotations

import asyncpg
import pytest

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.config_support import call, ok

GET_PATHS = ("/v2/workspace/apikeyconfig/get", "/v2/workspace/apikeymetadata/get")
UPDATE_PATHS = ("/v2/workspace/apikeyconfig/update", "/v2/workspace/apikeymetadata/update")


async def test_a_new_key_reports_the_defaults_and_its_owner(api: ApiClient) -> None:
    ws = await api.create_workspace("app-owner@example.com")

    for path in GET_PATHS:
        assert await ok(api, ws, path) == {
            "ownerEmail": "app-owner@example.com",
            "planInfo": {"type": "self-hosted"},
            "defaultDocumentAccessType": "public",
            "isPrivateCommentsEnabled": False,
            "requireJwtToken": False,
            "requireAutoOrgUser": False,
        }


async def test_updates_merge_and_echo_the_fields_sent(api: ApiClient) -> None:
    ws = await api.create_workspace("app-merge@example.com")

    first = await ok(
        api,
        ws,
        UPDATE_PATHS[0],
        {"requireJwtToken": True, "defaultDocumentAccessType": "restricted"},
    )
    second = await ok(api, ws, UPDATE_PATHS[1], {"enablePrivateComments": True})

    assert first == {"requireJwtToken": True, "defaultDocumentAccessType": "restricted"}
    assert second == {"enablePrivateComments": True}
    got = await ok(api, ws, GET_PATHS[0])
    assert got["requireJwtToken"] is True
    assert got["isPrivateCommentsEnabled"] is True
    assert got["defaultDocumentAccessType"] == "restricted"
    assert got["requireAutoOrgUser"] is False


async def test_ai_model_keys_are_sealed_and_only_shown_masked(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    ws = await api.create_workspace("app-ai@example.com")
    openai_key = "sk-openai-0123456789abcdefXyZ"

    updated = await ok(
        api,
        ws,
        UPDATE_PATHS[0],
        {
            "aiModelApiKey": [
                {"provider": "openai", "customerApiKey": openai_key},
                {"provider": "gemini", "customerApiKey": "short"},
            ]
        },
    )
    again = await ok(
        api,
        ws,
        UPDATE_PATHS[0],
        {"aiModelApiKey": [{"provider": "anthropic", "customerApiKey": "sk-ant-abcdefghijkl"}]},
    )

    assert updated == {
        "aiModelsConfig": {
            "openai": {"displayText": "sk-open...XyZ"},
            "gemini": {"displayText": "..."},
        }
    }
    assert set(again["aiModelsConfig"]) == {"openai", "gemini", "anthropic"}
    got = await ok(api, ws, GET_PATHS[0])
    assert got["aiModelsConfig"]["openai"] == {"displayText": "sk-open...XyZ"}
    stored = await db.fetchval(
        "SELECT app::text FROM identity.api_key_config WHERE api_key = $1", ws.api_key
    )
    assert openai_key not in stored
    assert "sk-ant-abcdefghijkl" not in stored


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"requireJwtToken": "yes"}, "data.requireJwtToken"),
        ({"defaultDocumentAccessType": "secret"}, "data.defaultDocumentAccessType"),
        ({"aiModelApiKey": []}, "data.aiModelApiKey"),
        ({"aiModelApiKey": [{"provider": "other", "customerApiKey": "k"}]}, None),
        ({"aiModelApiKey": [{"provider": "openai"}]}, None),
        ({"planInfo": {"type": "enterprise"}}, None),
    ],
)
async def test_invalid_updates_are_refused_naming_the_field(
    api: ApiClient, data: dict[str, object], path: str | None
) -> None:
    ws = await api.create_workspace("app-invalid@example.com")

    error = assert_failure(await call(api, ws, UPDATE_PATHS[0], data), 400, "INVALID_ARGUMENT")

    if path is not None:
        assert issue_paths(error) == [path]
    assert await ok(api, ws, GET_PATHS[0]) == await ok(api, ws, GET_PATHS[1])
    assert "aiModelsConfig" not in await ok(api, ws, GET_PATHS[0])


async def test_an_update_without_fields_is_refused(api: ApiClient) -> None:
    ws = await api.create_workspace("app-empty@example.com")

    error = assert_failure(await call(api, ws, UPDATE_PATHS[0], {}), 400, "INVALID_ARGUMENT")

    assert error["message"].endswith("At least one field must be provided for update")


async def test_each_key_has_its_own_config(api: ApiClient) -> None:
    a = await api.create_workspace("app-a@example.com")
    b = await api.create_workspace("app-b@example.com")
    await ok(api, a, UPDATE_PATHS[0], {"requireAutoOrgUser": True})

    assert (await ok(api, b, GET_PATHS[0]))["requireAutoOrgUser"] is False
    assert (await ok(api, b, GET_PATHS[0]))["ownerEmail"] == "app-b@example.com"


async def test_app_config_needs_the_api_keys_own_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace("app-auth@example.com")
    user_token = (
        await api.post("/v2/auth/generate_token", {"userId": "u"}, headers=ws.key_headers)
    ).data["token"]

    for path in (*GET_PATHS, *UPDATE_PATHS):
        body = {"requireJwtToken": True}
        wrong = await api.post(
            path, body, headers={"x-redline-api-key": ws.api_key, "x-redline-auth-token": "no"}
        )
        as_user = await api.post(
            path,
            body,
            headers={"x-redline-api-key": ws.api_key, "x-redline-auth-token": user_token},
        )
        assert_failure(wrong, 401, "UNAUTHENTICATED")
        assert_failure(
            await api.post(path, body, headers=ws.workspace_headers), 400, "INVALID_ARGUMENT"
        )
        assert_failure(as_user, 403, "PERMISSION_DENIED")
    assert (await ok(api, ws, GET_PATHS[0]))["requireJwtToken"] is False
