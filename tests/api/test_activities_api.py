"""The activity endpoints' get and add: custom records and their idempotent add, filters, order and
paging of get, the hosted reference's add shapes, validation paths and tenancy."""

from __future__ import annotations

from typing import Any

from redline.proto.events import now_ms
from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.activity_support import (
    ADD,
    DELETE,
    GET,
    ORG,
    UPDATE,
    add,
    call,
    get,
    ids,
    ok,
)

# custom records ------------------------------------------------------------------------------


async def test_custom_records_are_added_with_defaults_and_idempotent_ids(api: ApiClient) -> None:
    ws = await api.create_workspace("custom@example.com")
    full = {
        "id": "custom-1",
        "actionType": "document.published",
        "actionUser": {"userId": "alice", "name": "Alice"},
        "targetEntityId": "page-7",
        "targetSubEntityId": "block-2",
        "changes": {"state": {"from": "draft", "to": "live"}, "title": {"to": "Q3"}},
        "entityData": {"pages": 12},
        "immutable": False,
        "timestamp": 1_700_000_000_000,
    }
    before = now_ms()

    first, minimal = await add(api, ws, full, {"actionType": "ping"}, documentId="d1")

    assert first == {
        **full,
        "featureType": "custom",
        "changes": {"state": {"from": "draft", "to": "live"}, "title": {"from": None, "to": "Q3"}},
        "metadata": {"apiKey": ws.api_key, "organizationId": ORG, "documentId": "d1"},
    }
    assert minimal["id"].startswith("act_")
    assert before <= minimal["timestamp"] <= now_ms()
    assert {k: v for k, v in minimal.items() if k not in ("id", "timestamp")} == {
        "featureType": "custom",
        "actionType": "ping",
        "actionUser": None,
        "metadata": {"apiKey": ws.api_key, "organizationId": ORG, "documentId": "d1"},
        "targetEntityId": None,
        "targetSubEntityId": None,
        "changes": {},
        "entityData": None,
        "immutable": False,
    }

    again = await add(api, ws, {**full, "actionType": "changed", "entityData": {}})
    assert again == [first]
    assert await get(api, ws, activityIds=["custom-1"]) == [first]
    assert len(await get(api, ws)) == 2


async def test_an_id_used_in_another_organization_fails_the_whole_add(api: ApiClient) -> None:
    ws = await api.create_workspace("taken-id@example.com")
    await add(api, ws, {"id": "x1", "actionType": "a"})

    clash = await call(
        api,
        ws,
        ADD,
        organizationId="other-org",
        activities=[{"id": "fresh", "actionType": "a"}, {"id": "x1", "actionType": "a"}],
    )

    error = assert_failure(clash, 409, "ALREADY_EXISTS")
    assert issue_paths(error) == ["data.activities[1].id"]
    assert await ok(api, ws, GET, organizationId="other-org") == []


# get: filters, order, paging -----------------------------------------------------------------


async def seed(api: ApiClient, ws: Workspace) -> None:
    """r1..r5 by timestamp, r3 and r4 at the same moment."""
    alice, bob = {"userId": "alice"}, {"userId": "bob"}
    await add(
        api,
        ws,
        {"id": "r1", "actionType": "open", "actionUser": alice, "timestamp": 1000},
        {"id": "r2", "actionType": "close", "actionUser": bob, "timestamp": 2000},
        {"id": "r3", "actionType": "open", "targetEntityId": "t1", "timestamp": 3000},
        documentId="d1",
    )
    await add(
        api,
        ws,
        {"id": "r4", "actionType": "open", "targetEntityId": "t1", "timestamp": 3000},
        {"id": "r5", "actionType": "close", "actionUser": alice, "timestamp": 4000},
        documentId="d2",
    )


async def test_get_filters_and_orders_by_timestamp(api: ApiClient) -> None:
    ws = await api.create_workspace("filters@example.com")
    await seed(api, ws)

    assert ids(await get(api, ws)) == ["r5", "r4", "r3", "r2", "r1"]
    assert ids(await get(api, ws, order="asc")) == ["r1", "r2", "r3", "r4", "r5"]
    assert ids(await get(api, ws, documentId="d1")) == ["r3", "r2", "r1"]
    assert ids(await get(api, ws, targetEntityId="t1")) == ["r4", "r3"]
    assert ids(await get(api, ws, actionTypes=["close"])) == ["r5", "r2"]
    assert ids(await get(api, ws, userId="alice")) == ["r5", "r1"]
    assert ids(await get(api, ws, activityIds=["r1", "r4", "nope"])) == ["r4", "r1"]
    assert ids(await get(api, ws, featureTypes=["custom"])) == ["r5", "r4", "r3", "r2", "r1"]
    assert await get(api, ws, featureTypes=["comment", "reaction"]) == []
    assert ids(await get(api, ws, featureTypes=[], actionTypes=[])) == ids(await get(api, ws))
    assert ids(await get(api, ws, documentId="d2", userId="alice", actionTypes=["close"])) == ["r5"]
    assert await get(api, ws, documentId="d3") == []


async def test_pages_follow_signed_tokens_to_the_end(api: ApiClient) -> None:
    ws = await api.create_workspace("pages@example.com")
    await seed(api, ws)

    seen: list[list[str]] = []
    token = None
    while True:
        page = await call(
            api, ws, GET, organizationId=ORG, pageSize=2, **({"pageToken": token} if token else {})
        )
        assert page.status == 200, page.body
        seen.append(ids(page.data))
        token = page.result.get("nextPageToken")
        assert page.result.get("pageToken") == token
        if token is None:
            assert "nextPageToken" not in page.result
            assert "pageToken" not in page.result
            break
    assert seen == [["r5", "r4"], ["r3", "r2"], ["r1"]]

    first = await call(api, ws, GET, organizationId=ORG, pageSize=2, order="asc")
    assert ids(first.data) == ["r1", "r2"]
    second = await call(
        api,
        ws,
        GET,
        organizationId=ORG,
        pageSize=2,
        order="asc",
        pageToken=first.result["nextPageToken"],
    )
    assert ids(second.data) == ["r3", "r4"]


async def test_a_page_token_of_another_query_or_workspace_is_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace("tokens@example.com")
    other = await api.create_workspace("tokens-other@example.com")
    await seed(api, ws)
    await seed(api, other)
    page = await call(api, ws, GET, organizationId=ORG, pageSize=2)
    token = page.result["nextPageToken"]

    for caller, data in [
        (ws, {"order": "asc"}),
        (ws, {"organizationId": "elsewhere"}),
        (other, {}),
        (ws, {"pageToken": token[:-2] + ("AA" if token[-2:] != "AA" else "BB")}),
    ]:
        refused = await call(
            api, caller, GET, **{"organizationId": ORG, "pageToken": token, **data}
        )
        error = assert_failure(refused, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == ["data.pageToken"]


# the hosted reference's shapes -----------------------------------------------------------------


async def test_sdk_add_with_feature_types_and_display_fields(api: ApiClient) -> None:
    ws = await api.create_workspace("hosted-add@example.com")
    user = {"userId": "user-1", "email": "user@example.com", "name": "User Name"}
    # The hosted SDK's AddActivitiesRequest body, every activity field it documents.
    sdk_body = {
        "organizationId": ORG,
        "documentId": "doc-456",
        "activities": [
            {
                "id": "hosted-1",
                "featureType": "comment",
                "actionType": "comment.update",
                "actionUser": user,
                "targetEntityId": "annotation-789",
                "targetSubEntityId": "comment-001",
                "changes": {"commentText": {"from": "Original text", "to": "Updated text"}},
                "entityData": {"commentText": "Updated text"},
                "entityTargetData": {"annotationId": "annotation-789"},
                "displayMessageTemplate": "{{user}} updated a comment",
                "displayMessageTemplateData": {"user": {"userId": "user-1"}},
                "actionIcon": "https://example.com/icons/edit.svg",
                "isActivityResolverUsed": False,
            },
            {
                "featureType": "custom",
                "actionType": "statusChanged",
                "actionUser": user,
                "targetEntityId": "entity-456",
            },
            {"featureType": "recorder", "actionType": "recording.add", "actionUser": user},
            {"featureType": "crdt", "actionType": "crdt.edit", "actionUser": user},
        ],
    }

    response = await api.post(ADD, sdk_body, headers=ws.key_headers)

    assert response.status == 200, response.body
    first, custom, recorder, crdt = response.data["activities"]
    assert first["featureType"] == "comment"
    for name, value in sdk_body["activities"][0].items():  # type: ignore[index]
        assert first[name] == value, name
    assert (custom["featureType"], custom["targetEntityId"]) == ("custom", "entity-456")
    assert (recorder["featureType"], crdt["featureType"]) == ("recorder", "crdt")
    assert "displayMessageTemplate" not in recorder  # the display fields are kept when given
    found = await get(api, ws, featureTypes=["recorder", "crdt"])
    assert sorted(r["featureType"] for r in found) == ["crdt", "recorder"]


async def test_a_custom_feature_type_needs_its_target(api: ApiClient) -> None:
    ws = await api.create_workspace("hosted-target@example.com")
    activities = [
        {"featureType": "comment", "actionType": "a"},
        {"featureType": "custom", "actionType": "b"},
    ]

    refused = await call(api, ws, ADD, organizationId=ORG, activities=activities)
    unknown = await call(
        api, ws, ADD, organizationId=ORG, activities=[{"featureType": "poll", "actionType": "a"}]
    )

    error = assert_failure(refused, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.activities[1].targetEntityId"]
    error = assert_failure(unknown, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.activities[0].featureType"]
    assert await get(api, ws) == []
    # Without a featureType a record is custom and needs no target, as before.
    [plain] = await add(api, ws, {"actionType": "ping"})
    assert (plain["featureType"], plain["targetEntityId"]) == ("custom", None)


# validation and tenancy ----------------------------------------------------------------------


async def test_invalid_requests_name_the_field(api: ApiClient) -> None:
    ws = await api.create_workspace("invalid@example.com")
    cases: list[tuple[str, dict[str, Any], str]] = [
        (GET, {}, "data.organizationId"),
        (GET, {"organizationId": ORG, "pageSize": 0}, "data.pageSize"),
        (GET, {"organizationId": ORG, "pageSize": 1001}, "data.pageSize"),
        (GET, {"organizationId": ORG, "order": "sideways"}, "data.order"),
        (GET, {"organizationId": ORG, "featureTypes": ["poll"]}, "data.featureTypes[0]"),
        (GET, {"organizationId": ORG, "activityIds": ["x"] * 101}, "data.activityIds"),
        (GET, {"organizationId": ""}, "data.organizationId"),
        (ADD, {"organizationId": ORG, "activities": []}, "data.activities"),
        (
            ADD,
            {"organizationId": ORG, "activities": [{"actionType": "a"}] * 101},
            "data.activities",
        ),
        (
            ADD,
            {"organizationId": ORG, "activities": [{"id": "x" * 257, "actionType": "a"}]},
            "data.activities[0].id",
        ),
        (ADD, {"organizationId": ORG, "activities": [{}]}, "data.activities[0].actionType"),
        (
            ADD,
            {"organizationId": ORG, "activities": [{"actionType": "a", "color": "red"}]},
            "data.activities[0].color",
        ),
        (
            ADD,
            {"organizationId": ORG, "activities": [{"actionType": "a", "actionUser": {}}]},
            "data.activities[0].actionUser.userId",
        ),
        (UPDATE, {"organizationId": ORG}, "data.activityId"),
        (DELETE, {"organizationId": ORG, "activityIds": []}, "data.activityIds"),
    ]
    for path, data, field in cases:
        error = assert_failure(await call(api, ws, path, **data), 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == [field], (path, data)


async def test_another_workspace_sees_and_changes_nothing(api: ApiClient) -> None:
    owner = await api.create_workspace("owner@example.com")
    stranger = await api.create_workspace("stranger@example.com")
    [record] = await add(api, owner, {"id": "shared", "actionType": "a"})

    assert await get(api, stranger) == []
    assert await get(api, stranger, activityIds=["shared"]) == []
    changed = await call(
        api, stranger, UPDATE, organizationId=ORG, activityId="shared", actionType="b"
    )
    assert_failure(changed, 404, "NOT_FOUND")
    deleted = await ok(api, stranger, DELETE, organizationId=ORG, activityIds=["shared"])
    assert deleted["shared"]["success"] is False
    [own] = await add(api, stranger, {"id": "shared", "actionType": "theirs"})
    assert own["actionType"] == "theirs"
    assert own["metadata"]["apiKey"] == stranger.api_key

    assert await get(api, owner) == [record]
