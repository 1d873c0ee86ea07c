"""Advanced webhook endpoints: the shapes of the hosted product's reference, what its official
Python SDK sends, validation, the enable precondition, signing secrets and tenancy. Deliveries to
a real receiver are in tests/e2e/test_advanced_webhooks.py."""

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
from tests.api.credentials_support import create_key, key_headers

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


# update ------------------------------------------------------------------------------------------


async def test_update_changes_only_what_is_sent_and_null_clears(api: ApiClient) -> None:
    ws = await api.create_workspace("update@example.com")
    await enable(api, ws)
    endpoint = await create(
        api, ws, description="Primary", filterTypes=["comment.add"], rateLimit=5, uid="u-1"
    )

    response = await call(
        api,
        ws,
        UPDATE,
        {"endpointId": endpoint["id"], "disabled": True, "filterTypes": None, "rateLimit": None},
    )

    assert response.status == 200, response.body
    assert response.result["message"] == "Advanced webhook endpoint updated successfully."
    updated = response.data
    assert updated == {
        **endpoint,
        "disabled": True,
        "filterTypes": None,
        "rateLimit": None,
        "updatedAt": updated["updatedAt"],
    }
    assert updated["updatedAt"] >= endpoint["updatedAt"]
    assert (await ok(api, ws, LIST))["endpoints"] == [updated]


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"disabled": True}, "data.endpointId"),
        ({"endpointId": "ep_x"}, "data"),
        ({"endpointId": "", "disabled": True}, "data.endpointId"),
        ({"endpointId": "ep_x", "url": "https://metadata.google.internal/"}, "data.url"),
        ({"endpointId": "ep_x", "url": None}, "data.url"),
        ({"endpointId": "ep_x", "disabled": None}, "data.disabled"),
        ({"endpointId": "ep_x", "filterTypes": ["comment.nope"]}, "data.filterTypes[0]"),
        ({"endpointId": "ep_x", "uid": "renamed"}, "data.uid"),
    ],
)
async def test_update_names_the_bad_field(api: ApiClient, data: dict[str, Any], path: str) -> None:
    ws = await api.create_workspace("update-bad@example.com")
    await enable(api, ws)

    error = assert_failure(await call(api, ws, UPDATE, data), 400, "INVALID_ARGUMENT")

    assert path in issue_paths(error), error


async def test_unknown_endpoint_ids_are_not_found(api: ApiClient) -> None:
    ws = await api.create_workspace("unknown@example.com")
    await enable(api, ws)
    ref = {"endpointId": "ep_2vK9mPzGqLxYwBnRtCdHsJfAeUo"}

    answers = [
        await call(api, ws, UPDATE, {**ref, "disabled": True}),
        await call(api, ws, DELETE, ref),
        await call(api, ws, SECRET, ref),
    ]

    for answer in answers:
        error = assert_failure(answer, 404, "NOT_FOUND")
        assert error["message"] == "Advanced webhook provider request failed."


# delete and list ---------------------------------------------------------------------------------


async def test_delete_answers_and_the_endpoint_is_gone(api: ApiClient) -> None:
    ws = await api.create_workspace("delete@example.com")
    await enable(api, ws)
    kept, dropped = await create(api, ws), await create(api, ws, uid="old")

    response = await call(api, ws, DELETE, {"endpointId": "old"})

    assert response.status == 200, response.body
    assert response.result["message"] == "Advanced webhook endpoint deleted successfully."
    assert response.data == {"endpointId": dropped["id"], "deleted": True}
    assert [e["id"] for e in (await ok(api, ws, LIST))["endpoints"]] == [kept["id"]]
    assert_failure(await call(api, ws, DELETE, {"endpointId": dropped["id"]}), 404, "NOT_FOUND")


async def test_list_pages_forward_and_back_with_iterators(api: ApiClient) -> None:
    ws = await api.create_workspace("pages@example.com")
    await enable(api, ws)
    made = [(await create(api, ws, description=f"n{i}"))["id"] for i in range(5)]

    first = await call(api, ws, LIST, {"limit": 2})
    second = await ok(api, ws, LIST, {"limit": 2, "iterator": first.data["iterator"]})
    third = await ok(api, ws, LIST, {"limit": 2, "iterator": second["iterator"]})
    back = await ok(api, ws, LIST, {"limit": 2, "iterator": third["prevIterator"]})

    assert first.result["message"] == "Advanced webhook endpoints retrieved successfully."
    assert [e["id"] for e in first.data["endpoints"]] == made[:2]
    assert (first.data["prevIterator"], first.data["done"]) == (None, False)
    assert [e["id"] for e in second["endpoints"]] == made[2:4]
    assert [e["id"] for e in third["endpoints"]] == made[4:]
    assert (third["iterator"], third["done"]) == (None, True)
    assert back == second
    everything = await ok(api, ws, LIST, {})
    assert [e["id"] for e in everything["endpoints"]] == made
    assert (everything["iterator"], everything["prevIterator"], everything["done"]) == (
        None,
        None,
        True,
    )


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"limit": 0}, "data.limit"),
        ({"limit": 251}, "data.limit"),
        ({"limit": "10"}, "data.limit"),
        ({"iterator": "not-an-iterator"}, "data.iterator"),
        ({"iterator": ""}, "data.iterator"),
    ],
)
async def test_list_names_the_bad_field(api: ApiClient, data: dict[str, Any], path: str) -> None:
    ws = await api.create_workspace("list-bad@example.com")
    await enable(api, ws)

    error = assert_failure(await call(api, ws, LIST, data), 400, "INVALID_ARGUMENT")

    assert path in issue_paths(error), error


# tenancy and credentials -------------------------------------------------------------------------


async def test_another_workspace_neither_sees_nor_changes_an_endpoint(api: ApiClient) -> None:
    owner = await api.create_workspace("owner@alpha.example")
    intruder = await api.create_workspace("intruder@bravo.example")
    for ws in (owner, intruder):
        await enable(api, ws)
    endpoint = await create(api, owner, uid="alpha-hook")
    secret = await secret_of(api, owner, endpoint["id"])

    for ref in (endpoint["id"], "alpha-hook"):
        for path, data in (
            (UPDATE, {"endpointId": ref, "url": "https://evil.example.com/"}),
            (SECRET, {"endpointId": ref}),
            (DELETE, {"endpointId": ref}),
        ):
            answer = await call(api, intruder, path, data)
            assert_failure(answer, 404, "NOT_FOUND")
            assert secret not in str(answer.body)
    assert (await ok(api, intruder, LIST))["endpoints"] == []
    assert (await ok(api, owner, LIST))["endpoints"] == [endpoint]
    assert await secret_of(api, owner, endpoint["id"]) == secret


async def test_endpoints_belong_to_their_api_key(api: ApiClient) -> None:
    ws = await api.create_workspace("two-keys@example.com")
    await enable(api, ws)
    endpoint = await create(api, ws)
    other = await create_key(api, ws, apiKeyName="Second")
    other_headers = key_headers(other["apiKey"], other["authToken"])
    await api.post(CONFIG_UPDATE, {"isEnabled": True}, headers=other_headers)

    listed = await api.post(LIST, {}, headers=other_headers)
    secret = await api.post(SECRET, {"endpointId": endpoint["id"]}, headers=other_headers)

    assert listed.data["endpoints"] == []
    assert_failure(secret, 404, "NOT_FOUND")


async def test_a_user_token_may_not_manage_endpoints(api: ApiClient) -> None:
    ws = await api.create_workspace("user-token@example.com")
    await enable(api, ws)
    endpoint = await create(api, ws)
    token = await api.post("/v2/auth/generate_token", {"userId": "ana"}, headers=ws.key_headers)
    as_user = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": token.data["token"]}

    answer = await api.post(SECRET, {"endpointId": endpoint["id"]}, headers=as_user)

    assert_failure(answer, 403, "PERMISSION_DENIED")
