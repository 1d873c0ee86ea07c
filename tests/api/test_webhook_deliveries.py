"""The delivery endpoints' contract: validation, paging tokens and tenancy. Deliveries
themselves, sent to a real receiver, are in tests/e2e."""

from __future__ import annotations

import pytest

from redline.testing.api import ApiClient, assert_failure

LIST = "/v2/webhooks/deliveries/list"
RETRY = "/v2/webhooks/deliveries/retry"


async def test_a_key_without_deliveries_lists_none(api: ApiClient) -> None:
    ws = await api.create_workspace("empty@example.com")

    listed = await api.post(LIST, {}, headers=ws.key_headers)

    assert listed.status == 200, listed.body
    assert listed.data == []
    assert "nextPageToken" not in listed.result
    assert listed.result["message"] == "Webhook deliveries retrieved successfully."


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"status": "lost"}, "data.status"),
        ({"eventTypes": ["comment.add"] * 51}, "data.eventTypes"),
        ({"eventTypes": [""]}, "data.eventTypes[0]"),
        ({"createdAfter": -1}, "data.createdAfter"),
        ({"createdBefore": "yesterday"}, "data.createdBefore"),
        ({"pageSize": 0}, "data.pageSize"),
        ({"pageSize": 501}, "data.pageSize"),
        ({"pageToken": "not-a-token"}, "data.pageToken"),
        ({"pageToken": ""}, "data.pageToken"),
        ({"state": "failed"}, "data.state"),
    ],
)
async def test_list_names_the_bad_field(api: ApiClient, data: dict[str, object], path: str) -> None:
    ws = await api.create_workspace("bad-list@example.com")

    response = await api.post(LIST, data, headers=ws.key_headers)

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert path in (error["message"] + str(error.get("details")))


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({}, "data.deliveryIds"),
        ({"deliveryIds": []}, "data.deliveryIds"),
        ({"deliveryIds": [f"msg_{i}" for i in range(101)]}, "data.deliveryIds"),
        ({"deliveryIds": ["x" * 257]}, "data.deliveryIds[0]"),
        ({"deliveryIds": [7]}, "data.deliveryIds[0]"),
    ],
)
async def test_retry_names_the_bad_field(
    api: ApiClient, data: dict[str, object], path: str
) -> None:
    ws = await api.create_workspace("bad-retry@example.com")

    response = await api.post(RETRY, data, headers=ws.key_headers)

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert path in (error["message"] + str(error.get("details")))


async def test_unknown_ids_are_answered_one_by_one(api: ApiClient) -> None:
    ws = await api.create_workspace("unknown@example.com")

    response = await api.post(RETRY, {"deliveryIds": ["msg_a", "msg_b"]}, headers=ws.key_headers)

    assert response.status == 200, response.body
    assert response.data == {
        "msg_a": {"success": False, "message": "Delivery not found."},
        "msg_b": {"success": False, "message": "Delivery not found."},
    }


async def test_the_endpoints_need_the_api_keys_own_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace("creds@example.com")

    missing = await api.post(LIST, {})
    assert_failure(missing, 400, "INVALID_ARGUMENT")
    wrong = await api.post(
        LIST, {}, headers={**ws.key_headers, "x-redline-auth-token": "not-the-token"}
    )
    assert_failure(wrong, 401, "UNAUTHENTICATED")
    token = await api.post("/v2/auth/generate_token", {"userId": "ana"}, headers=ws.key_headers)
    as_user = await api.post(
        LIST,
        {},
        headers={"x-redline-api-key": ws.api_key, "x-redline-auth-token": token.data["token"]},
    )
    assert_failure(as_user, 403, "PERMISSION_DENIED")
