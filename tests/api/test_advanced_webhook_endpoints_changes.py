"""Advanced webhook endpoints after they are made: partial updates, deletes, listing a page at a
time, and who may reach them (other workspaces, other keys, user tokens)."""

from __future__ import annotations

from typing import Any

import pytest

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.advanced_webhooks_support import (
    CONFIG_UPDATE,
    DELETE,
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
