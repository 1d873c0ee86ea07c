"""The activity endpoints' update and delete: fields replaced and immutable records kept, per-id
answers, and the hosted reference's update and delete shapes."""

from __future__ import annotations

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.activity_support import (
    DELETE,
    ORG,
    UPDATE,
    add,
    call,
    get,
    ids,
    ok,
)

# update and delete ---------------------------------------------------------------------------


async def test_update_replaces_the_fields_sent_and_keeps_the_rest(api: ApiClient) -> None:
    ws = await api.create_workspace("update@example.com")
    [record] = await add(
        api,
        ws,
        {"id": "u1", "actionType": "draft", "actionUser": {"userId": "alice"}, "timestamp": 5},
    )

    updated = await ok(
        api,
        ws,
        UPDATE,
        organizationId=ORG,
        activityId="u1",
        actionType="published",
        changes={"state": {"from": "draft", "to": "live"}},
        entityData={"v": 2},
        targetEntityId="doc-page",
    )

    assert updated == {
        **record,
        "actionType": "published",
        "changes": {"state": {"from": "draft", "to": "live"}},
        "entityData": {"v": 2},
        "targetEntityId": "doc-page",
    }
    assert await get(api, ws) == [updated]
    assert await get(api, ws, actionTypes=["published"], targetEntityId="doc-page") == [updated]

    locked = await ok(api, ws, UPDATE, organizationId=ORG, activityId="u1", immutable=True)
    assert locked == {**updated, "immutable": True}
    refused = await call(api, ws, UPDATE, organizationId=ORG, activityId="u1", actionType="x")
    assert assert_failure(refused, 400, "FAILED_PRECONDITION")["message"] == (
        "Activity u1 is immutable."
    )
    assert await get(api, ws) == [locked]


async def test_update_needs_a_field_and_a_known_record(api: ApiClient) -> None:
    ws = await api.create_workspace("update-bad@example.com")
    await add(api, ws, {"id": "u1", "actionType": "a"})

    empty = await call(api, ws, UPDATE, organizationId=ORG, activityId="u1")
    error = assert_failure(empty, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data"]
    assert "actionType" in error["message"]
    unlock = await call(api, ws, UPDATE, organizationId=ORG, activityId="u1", immutable=False)
    assert issue_paths(assert_failure(unlock, 400, "INVALID_ARGUMENT")) == ["data.immutable"]
    missing = await call(api, ws, UPDATE, organizationId=ORG, activityId="nope", actionType="b")
    assert_failure(missing, 404, "NOT_FOUND")
    elsewhere = await call(
        api, ws, UPDATE, organizationId="other-org", activityId="u1", actionType="b"
    )
    assert_failure(elsewhere, 404, "NOT_FOUND")


async def test_delete_answers_per_id_and_keeps_immutable_records(api: ApiClient) -> None:
    ws = await api.create_workspace("delete@example.com")
    await add(
        api,
        ws,
        {"id": "go", "actionType": "a"},
        {"id": "keep", "actionType": "a", "immutable": True},
    )

    result = await ok(api, ws, DELETE, organizationId=ORG, activityIds=["go", "keep", "nope"])

    assert result == {
        "go": {"success": True, "id": "go", "message": "Activity deleted."},
        "keep": {"success": False, "id": "keep", "message": "Activity is immutable."},
        "nope": {"success": False, "id": "nope", "message": "Activity not found."},
    }
    assert ids(await get(api, ws)) == ["keep"]
    again = await ok(api, ws, DELETE, organizationId=ORG, activityIds=["go"])
    assert again == {"go": {"success": False, "id": "go", "message": "Activity not found."}}


# the hosted reference's update and delete shapes --------------------------------------------------


async def test_sdk_update_of_several_records_answers_per_id(api: ApiClient) -> None:
    ws = await api.create_workspace("hosted-update@example.com")
    await add(
        api,
        ws,
        {"id": "activity-001", "actionType": "a", "changes": {"x": {"to": 1}}},
        {"id": "activity-002", "actionType": "a"},
        {"id": "locked", "actionType": "a", "immutable": True},
    )
    # The hosted SDK's UpdateActivitiesRequest body.
    sdk_body = {
        "organizationId": ORG,
        "activities": [
            {
                "id": "activity-001",
                "changes": {"y": {"from": 1, "to": 2}},
                "entityData": {"v": 2},
                "entityTargetData": {"t": 1},
                "displayMessageTemplate": "{{user}} updated the comment",
                "displayMessageTemplateData": {"user": {"userId": "user-1", "name": "User"}},
            },
            {"id": "activity-002", "actionIcon": "https://example.com/icons/edit.svg"},
            {"id": "locked", "actionIcon": "x"},
            {"id": "nope", "actionIcon": "x"},
        ],
    }

    response = await api.post(UPDATE, sdk_body, headers=ws.key_headers)

    assert response.status == 200, response.body
    assert response.data == {
        "activity-001": {"success": True, "message": "Activity updated."},
        "activity-002": {"success": True, "message": "Activity updated."},
        "locked": {"success": False, "message": "Activity is immutable."},
        "nope": {"success": False, "message": "Activity not found."},
    }
    records = {r["id"]: r for r in await get(api, ws)}
    first = records["activity-001"]
    assert first["changes"] == {"y": {"from": 1, "to": 2}}
    assert first["entityData"] == {"v": 2}
    assert first["entityTargetData"] == {"t": 1}
    assert first["displayMessageTemplate"] == "{{user}} updated the comment"
    assert first["actionType"] == "a"
    assert records["activity-002"]["actionIcon"] == "https://example.com/icons/edit.svg"
    assert "actionIcon" not in records["locked"]


async def test_update_forms_do_not_mix(api: ApiClient) -> None:
    ws = await api.create_workspace("hosted-mix@example.com")
    await add(api, ws, {"id": "m1", "actionType": "a"})

    mixed = await call(
        api, ws, UPDATE, organizationId=ORG, activityId="m1", activities=[{"id": "m1"}]
    )
    with_field = await call(
        api, ws, UPDATE, organizationId=ORG, actionType="b", activities=[{"id": "m1"}]
    )

    assert issue_paths(assert_failure(mixed, 400, "INVALID_ARGUMENT")) == ["data.activityId"]
    assert issue_paths(assert_failure(with_field, 400, "INVALID_ARGUMENT")) == ["data.actionType"]


async def test_delete_by_document_and_target_as_the_reference_does(api: ApiClient) -> None:
    ws = await api.create_workspace("hosted-delete@example.com")
    await add(
        api,
        ws,
        {"id": "d1-a", "actionType": "a", "targetEntityId": "annotation-789"},
        {"id": "d1-b", "actionType": "a", "targetEntityId": "other"},
        {"id": "d1-keep", "actionType": "a", "targetEntityId": "annotation-789", "immutable": True},
        documentId="doc-456",
    )
    await add(api, ws, {"id": "d2-a", "actionType": "a", "targetEntityId": "annotation-789"})

    by_both = await ok(
        api, ws, DELETE, organizationId=ORG, documentId="doc-456", targetEntityId="annotation-789"
    )
    assert by_both == {
        "d1-a": {"success": True, "id": "d1-a", "message": "Activity deleted."},
        "d1-keep": {"success": False, "id": "d1-keep", "message": "Activity is immutable."},
    }
    by_target = await ok(api, ws, DELETE, organizationId=ORG, targetEntityId="annotation-789")
    assert set(by_target) == {"d2-a", "d1-keep"}
    by_document = await ok(api, ws, DELETE, organizationId=ORG, documentId="doc-456")
    assert by_document["d1-b"]["success"] is True
    assert ids(await get(api, ws)) == ["d1-keep"]
    nothing = await call(api, ws, DELETE, organizationId=ORG)
    assert issue_paths(assert_failure(nothing, 400, "INVALID_ARGUMENT")) == ["data.activityIds"]
