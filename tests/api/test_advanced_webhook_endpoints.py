"""Advanced webhook endpoints made: the shapes of the hosted product's reference, what its
official Python SDK sends, validation, the enable precondition and signing secrets. Changes,
listing and tenancy are in test_advanced_webhook_endpoints_changes.py; deliveries to a real
receiver in tests/e2e/test_advanced_webhooks.py."""

from __future__ import annotations

import base64
import re
from typing import Any

import asyncpg
import pytest

from redline.testing.api import ApiClient, StartApi, assert_failure, issue_paths
from tests.api.advanced_webhooks_support import (
    CONFIG_UPDATE,
    CREATE,
    DELETE,
    HOOK,
    LIST,
    SECRET,
    UPDATE,
    call,
    create,
    enable,
    ok,
    secret_of,
)

ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
NOT_CONFIGURED = "Advanced webhooks are not configured for this workspace."
DISABLED = "Advanced webhooks are disabled for this workspace."


# the enable precondition -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "data"),
    [
        (CREATE, {"url": HOOK}),
        (LIST, {}),
        (UPDATE, {"endpointId": "ep_x", "disabled": True}),
        (DELETE, {"endpointId": "ep_x"}),
        (SECRET, {"endpointId": "ep_x"}),
    ],
)
async def test_endpoints_need_advanced_webhooks_enabled_first(
    api: ApiClient, path: str, data: dict[str, Any]
) -> None:
    ws = await api.create_workspace("precondition@example.com")

    never = assert_failure(await call(api, ws, path, data), 400, "FAILED_PRECONDITION")
    await enable(api, ws)
    await ok(api, ws, CONFIG_UPDATE, {"isEnabled": False})
    off = assert_failure(await call(api, ws, path, data), 400, "FAILED_PRECONDITION")

    assert never["message"].startswith(NOT_CONFIGURED)
    assert off["message"].startswith(DISABLED)
    assert '{ "isEnabled": true }' in off["message"]


async def test_config_answers_in_the_references_words(api: ApiClient) -> None:
    ws = await api.create_workspace("config-words@example.com")

    updated = await call(api, ws, CONFIG_UPDATE, {"isEnabled": True})
    read = await call(api, ws, "/v2/workspace/advancedwebhookconfig/get")

    assert updated.result["message"] == "Advanced webhook configuration updated successfully."
    assert read.result["message"] == "Advanced webhook configuration retrieved successfully."
    assert read.data["isEnabled"] is True


# create ------------------------------------------------------------------------------------------


async def test_create_answers_the_endpoint_with_unset_fields_null(api: ApiClient) -> None:
    ws = await api.create_workspace("create@example.com")
    await enable(api, ws)

    response = await call(
        api,
        ws,
        CREATE,
        {"url": HOOK, "description": "Primary", "filterTypes": ["comment.add", "comment.update"]},
    )

    assert response.status == 200, response.body
    assert response.result["message"] == "Advanced webhook endpoint created successfully."
    endpoint = response.data
    assert re.fullmatch(r"ep_[A-Za-z0-9]{27}", endpoint["id"])
    assert ISO_MS.match(endpoint["createdAt"])
    assert endpoint["updatedAt"] == endpoint["createdAt"]
    assert {k: v for k, v in endpoint.items() if k not in ("id", "createdAt", "updatedAt")} == {
        "url": HOOK,
        "description": "Primary",
        "filterTypes": ["comment.add", "comment.update"],
        "channels": None,
        "disabled": False,
        "rateLimit": None,
        "uid": None,
    }


async def test_create_takes_every_field_the_sdk_sends(start_api: StartApi) -> None:
    api = await start_api(header_brands=["redline", "velt"])
    ws = await api.create_workspace("sdk@example.com")
    await enable(api, ws)
    # The SDK's headers: the key's credentials under the hosted brand, and the workspace id.
    sdk_headers = {
        "x-velt-api-key": ws.api_key,
        "x-velt-auth-token": ws.auth_token,
        "x-velt-workspace-id": ws.id,
    }

    response = await api.post(
        CREATE,
        {
            "url": HOOK,
            "description": "All fields",
            "filterTypes": ["comment_annotation.add"],
            "channels": ["project-1"],
            "disabled": True,
            "rateLimit": 10,
            "uid": "primary-hook",
            "metadata": {"team": "docs"},
        },
        headers=sdk_headers,
    )

    assert response.status == 200, response.body
    assert {k: response.data[k] for k in ("channels", "disabled", "rateLimit", "uid")} == {
        "channels": ["project-1"],
        "disabled": True,
        "rateLimit": 10,
        "uid": "primary-hook",
    }
    listed = await api.post(LIST, {"limit": 10}, headers=sdk_headers)
    assert [e["uid"] for e in listed.data["endpoints"]] == ["primary-hook"]


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({}, "data.url"),
        ({"url": ""}, "data.url"),
        ({"url": "ftp://hooks.example.com/x"}, "data.url"),
        ({"url": "https://localhost/hook"}, "data.url"),
        ({"url": "https://10.0.0.8/hook"}, "data.url"),
        ({"url": "http://hooks.example.com/plain"}, "data.url"),
        ({"url": HOOK, "filterTypes": []}, "data.filterTypes"),
        ({"url": HOOK, "filterTypes": ["comment.add", "comment.added"]}, "data.filterTypes[1]"),
        ({"url": HOOK, "filterTypes": ["x"] * 51}, "data.filterTypes"),
        ({"url": HOOK, "channels": []}, "data.channels"),
        ({"url": HOOK, "channels": ["has space"]}, "data.channels[0]"),
        ({"url": HOOK, "rateLimit": 0}, "data.rateLimit"),
        ({"url": HOOK, "rateLimit": 1.5}, "data.rateLimit"),
        ({"url": HOOK, "uid": "ep_looks_like_an_id"}, "data.uid"),
        ({"url": HOOK, "uid": "not/a/uid"}, "data.uid"),
        ({"url": HOOK, "metadata": {"team": 7}}, "data.metadata[...]"),
        ({"url": HOOK, "description": "x" * 1025}, "data.description"),
        ({"url": HOOK, "disabled": "yes"}, "data.disabled"),
        ({"url": HOOK, "secret": "whsec_bWluZQ=="}, "data.secret"),
    ],
)
async def test_create_names_the_bad_field_and_stores_nothing(
    api: ApiClient, data: dict[str, Any], path: str
) -> None:
    ws = await api.create_workspace("create-bad@example.com")
    await enable(api, ws)

    error = assert_failure(await call(api, ws, CREATE, data), 400, "INVALID_ARGUMENT")

    assert path in issue_paths(error), error
    assert (await ok(api, ws, LIST))["endpoints"] == []


async def test_a_uid_is_unique_per_key_and_stands_for_the_id(api: ApiClient) -> None:
    ws = await api.create_workspace("uid@example.com")
    await enable(api, ws)
    endpoint = await create(api, ws, uid="billing")

    again = await call(api, ws, CREATE, {"url": HOOK, "uid": "billing"})
    by_uid = await ok(api, ws, UPDATE, {"endpointId": "billing", "description": "By uid"})

    assert_failure(again, 409, "ALREADY_EXISTS")
    assert by_uid["id"] == endpoint["id"]
    assert by_uid["description"] == "By uid"


# secrets -----------------------------------------------------------------------------------------


async def test_each_endpoint_gets_its_own_standard_webhooks_secret(api: ApiClient) -> None:
    ws = await api.create_workspace("secret@example.com")
    await enable(api, ws)
    first, second = await create(api, ws), await create(api, ws)

    response = await call(api, ws, SECRET, {"endpointId": first["id"]})
    other = await secret_of(api, ws, second["id"])

    assert response.result["message"] == "Advanced webhook endpoint secret retrieved successfully."
    assert response.data["endpointId"] == first["id"]
    secret = response.data["secret"]
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) == 24
    assert other != secret
    assert "secret" not in first
    assert secret not in str(first)


async def test_the_secret_stays_across_updates_and_goes_with_the_endpoint(api: ApiClient) -> None:
    ws = await api.create_workspace("secret-life@example.com")
    await enable(api, ws)
    endpoint = await create(api, ws, uid="kept")
    secret = await secret_of(api, ws, endpoint["id"])

    await ok(api, ws, UPDATE, {"endpointId": endpoint["id"], "url": HOOK + "/v2"})
    after_update = await secret_of(api, ws, "kept")
    await ok(api, ws, DELETE, {"endpointId": endpoint["id"]})
    gone = await call(api, ws, SECRET, {"endpointId": endpoint["id"]})
    recreated = await create(api, ws, uid="kept")

    assert after_update == secret
    assert_failure(gone, 404, "NOT_FOUND")
    assert await secret_of(api, ws, recreated["id"]) != secret


async def test_secrets_are_stored_sealed(api: ApiClient, db: asyncpg.Connection) -> None:
    ws = await api.create_workspace("sealed@example.com")
    await enable(api, ws)
    endpoint = await create(api, ws)
    secret = await secret_of(api, ws, endpoint["id"])

    row = await db.fetchrow(
        "SELECT * FROM identity.advanced_webhook_endpoint WHERE id = $1", endpoint["id"]
    )

    assert row is not None
    stored = b"".join(str(v).encode() if not isinstance(v, bytes) else v for v in row.values())
    assert secret.encode() not in stored
    assert base64.b64decode(secret.removeprefix("whsec_")) not in stored
