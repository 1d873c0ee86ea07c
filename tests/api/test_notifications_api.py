"""The notification endpoints: add in the hosted shapes, a user's feed and a document's listing,
paging, read state, delete, validation paths, and tenancy across keys, workspaces and users."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.credentials_support import create_key, key_headers
from tests.api.notification_support import (
    ADD,
    DELETE,
    DOC,
    GET,
    ORG,
    UPDATE,
    add,
    call,
    feed,
    ok,
)


async def user_token(api: ApiClient, ws: Workspace, user_id: str) -> dict[str, str]:
    generated = await ok(api, ws, "/v2/auth/generate_token", userId=user_id)
    return {"x-redline-api-key": ws.api_key, "x-redline-auth-token": generated["token"]}


# add and get -----------------------------------------------------------------------------------


async def test_an_added_notification_reaches_the_named_users_in_the_reference_shape(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("notify-add@example.com")
    sdk_body = {
        "organizationId": ORG,
        "documentId": DOC,
        "actionUser": {"userId": "sender", "name": "Sender", "email": "s@example.com"},
        "displayHeadlineMessageTemplate": "{actionUser} shared {file}",
        "displayHeadlineMessageTemplateData": {"file": "Q3 plan"},
        "displayBodyMessage": "Take a look",
        "notifyUsers": [{"userId": "ann", "email": "ann@example.com"}, {"userId": "bob"}],
        "notifyAll": False,
        "notificationId": "share-1",
        "notificationSourceData": {"fileId": "f-9"},
        "location": {"id": "page-2"},
        "metadata": {"anything": "the SDK sends"},
        "context": {"access": {"dashboardId": "main"}},
        "isCrossOrganizationEnabled": False,
    }

    response = await call(api, ws, ADD, **sdk_body)

    assert response.status == 200, response.body
    assert response.result["message"] == "Notification added successfully."
    assert response.data == {
        "success": True,
        "message": "Notification added successfully.",
        "notificationId": "share-1",
    }
    [entry] = await feed(api, ws, "ann")
    assert entry["id"] == "share-1"
    assert entry["notificationSource"] == "custom"
    assert entry["notificationSourceData"] == {"fileId": "f-9"}
    assert entry["actionUser"] == sdk_body["actionUser"]
    assert entry["displayHeadlineMessageTemplateData"] == {"file": "Q3 plan"}
    assert entry["displayBodyMessage"] == "Take a look"
    assert entry["metadata"] == {"apiKey": ws.api_key, "organizationId": ORG, "documentId": DOC}
    assert entry["notifyUsers"] == {"ann": True, "bob": True}
    assert entry["notifyUsersByUserId"] == {"ann": True, "bob": True}
    assert entry["isRead"] is False
    assert isinstance(entry["timestamp"], int)
    assert [e["id"] for e in await feed(api, ws, "bob")] == ["share-1"]
    assert await feed(api, ws, "carol") == []
    by_location = await ok(api, ws, GET, organizationId=ORG, documentId=DOC, locationId="page-2")
    assert [e["id"] for e in by_location] == ["share-1"]
    assert "isRead" not in by_location[0]
    elsewhere = await ok(api, ws, GET, organizationId=ORG, documentId=DOC, locationId="page-3")
    assert elsewhere == []


async def test_the_same_notification_id_adds_once(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-idem@example.com")
    await add(api, ws, "ann", notification_id="once")
    await add(api, ws, "ann", notification_id="once")

    assert [e["id"] for e in await feed(api, ws, "ann")] == ["once"]
    other_org = await call(
        api,
        ws,
        ADD,
        organizationId="other",
        documentId=DOC,
        actionUser={"userId": "s"},
        displayHeadlineMessageTemplate="x",
        displayBodyMessage="y",
        notifyUsers=[{"userId": "ann"}],
        notificationId="once",
    )
    assert_failure(other_org, 409, "ALREADY_EXISTS")


async def test_notify_all_reaches_every_user_of_the_organization(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-all@example.com")
    everyone = await add(api, ws, notifyAll=True)
    await add(api, ws, "ann", notification_id="just-ann")

    assert [e["id"] for e in await feed(api, ws, "zed")] == [everyone]
    assert {e["id"] for e in await feed(api, ws, "ann")} == {everyone, "just-ann"}
    other_org = await ok(api, ws, GET, organizationId="other", userId="zed")
    assert other_org == []


async def test_the_resolver_form_needs_no_display_fields(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-resolver@example.com")
    notification = await add(
        api,
        ws,
        "ann",
        notification_id="custom-notif-001",
        isNotificationResolverUsed=True,
        notificationSource="custom",
        displayHeadlineMessageTemplate=None,
        displayBodyMessage=None,
    )
    [entry] = await feed(api, ws, "ann")
    assert entry["id"] == notification
    assert entry["isNotificationResolverUsed"] is True
    assert entry["displayBodyMessage"] is None


async def test_verify_user_permissions_keeps_users_without_access_out(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-verify@example.com")
    await ok(api, ws, "/v2/organizations/add", organizations=[{"organizationId": ORG}])
    await ok(
        api,
        ws,
        "/v2/organizations/documents/add",
        organizationId=ORG,
        documents=[{"documentId": DOC}],
    )
    await ok(
        api,
        ws,
        "/v2/organizations/documents/access/update",
        organizationId=ORG,
        documentIds=[DOC],
        accessType="restricted",
    )
    grant = {"type": "document", "id": DOC, "organizationId": ORG, "accessRole": "viewer"}
    await ok(
        api,
        ws,
        "/v2/auth/permissions/add",
        user={"userId": "ann"},
        permissions={"resources": [grant]},
    )

    await add(api, ws, "ann", "bob", notification_id="checked", verifyUserPermissions=True)

    assert [e["id"] for e in await feed(api, ws, "ann")] == ["checked"]
    assert await feed(api, ws, "bob") == []


# paging and order ------------------------------------------------------------------------------


async def test_a_feed_pages_with_page_token_in_either_order(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-pages@example.com")
    made = [await add(api, ws, "ann", notification_id=f"n{i}") for i in range(5)]

    seen: list[str] = []
    token = None
    while True:
        page = {"pageSize": 2, **({"pageToken": token} if token else {})}
        response = await call(api, ws, GET, organizationId=ORG, userId="ann", **page)
        assert response.status == 200, response.body
        seen += [e["id"] for e in response.data]
        token = response.result.get("pageToken")
        assert token == response.result.get("nextPageToken")
        if token is None:
            break
    assert seen == list(reversed(made))
    ascending = await feed(api, ws, "ann", order="asc")
    assert [e["id"] for e in ascending] == made
    assert [e["id"] for e in await feed(api, ws, "ann", notificationIds=["n1", "n3"])] == [
        "n3",
        "n1",
    ]


async def test_a_page_token_of_another_query_is_refused(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-token@example.com")
    for i in range(3):
        await add(api, ws, "ann", "bob", notification_id=f"t{i}")
    first = await call(api, ws, GET, organizationId=ORG, userId="ann", pageSize=1)
    token = first.result["pageToken"]

    for other in ({"userId": "bob"}, {"userId": "ann", "order": "asc"}):
        response = await call(api, ws, GET, organizationId=ORG, pageToken=token, **other)
        error = assert_failure(response, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == ["data.pageToken"]


# read state, update, delete --------------------------------------------------------------------


async def test_update_marks_read_and_unread_per_user_and_changes_content(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-read@example.com")
    first = await add(api, ws, "ann", "bob", notification_id="r1")
    everyone = await add(api, ws, notification_id="r2", notifyAll=True)

    changed = await ok(
        api,
        ws,
        UPDATE,
        organizationId=ORG,
        notifications=[
            {"id": first, "readByUserIds": ["ann"], "displayBodyMessage": "Edited"},
            {"id": everyone, "readByUserIds": ["ann", "zed"], "persistReadForUsers": True},
            {"id": "missing", "readByUserIds": ["ann"]},
        ],
    )

    assert changed == {
        first: {"success": True, "message": "Notification updated."},
        everyone: {"success": True, "message": "Notification updated."},
        "missing": {"success": False, "message": "Failed to update notification."},
    }
    ann = {e["id"]: e for e in await feed(api, ws, "ann")}
    assert ann[first]["isRead"] is True
    assert ann[first]["displayBodyMessage"] == "Edited"
    assert ann[everyone]["isRead"] is True
    bob = {e["id"]: e["isRead"] for e in await feed(api, ws, "bob")}
    assert bob == {first: False, everyone: False}
    assert {e["id"]: e["isRead"] for e in await feed(api, ws, "zed")} == {everyone: True}

    await ok(
        api,
        ws,
        UPDATE,
        organizationId=ORG,
        notifications=[{"id": first, "unreadByUserIds": ["ann"]}],
    )
    ann = {e["id"]: e["isRead"] for e in await feed(api, ws, "ann")}
    assert ann == {first: False, everyone: True}


async def test_update_applies_only_where_the_filters_match(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-scope@example.com")
    notification = await add(api, ws, "ann", notification_id="scoped")

    for scope in ({"documentId": "d2"}, {"userId": "bob"}, {"locationId": "nowhere"}):
        outcome = await ok(
            api,
            ws,
            UPDATE,
            organizationId=ORG,
            notifications=[{"id": notification, "displayBodyMessage": "x"}],
            **scope,
        )
        assert outcome[notification]["success"] is False
    outcome = await ok(
        api,
        ws,
        UPDATE,
        organizationId=ORG,
        documentId=DOC,
        userId="ann",
        notifications=[{"id": notification, "notifyUsers": [{"userId": "bob"}]}],
    )
    assert outcome[notification]["success"] is True
    assert await feed(api, ws, "ann") == []
    assert [e["id"] for e in await feed(api, ws, "bob")] == [notification]


async def test_delete_from_one_feed_or_for_everyone(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-delete@example.com")
    shared = await add(api, ws, "ann", "bob", notification_id="d-shared")
    everyone = await add(api, ws, notification_id="d-all", notifyAll=True)
    other_doc = await add(api, ws, "ann", notification_id="d-other", documentId="d2")

    hidden = await ok(api, ws, DELETE, organizationId=ORG, userId="ann", documentId=DOC)
    assert hidden == {
        everyone: {"success": True, "message": "Notification deleted."},
        shared: {"success": True, "message": "Notification deleted."},
    }
    assert [e["id"] for e in await feed(api, ws, "ann")] == [other_doc]
    assert {e["id"] for e in await feed(api, ws, "bob")} == {shared, everyone}

    gone = await ok(api, ws, DELETE, organizationId=ORG, notificationIds=[shared, "nope"])
    assert gone == {
        shared: {"success": True, "message": "Notification deleted."},
        "nope": {"success": False, "message": "Failed to delete notification."},
    }
    assert [e["id"] for e in await feed(api, ws, "bob")] == [everyone]


# validation ------------------------------------------------------------------------------------


async def test_requests_are_validated_with_the_field_named(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-bad@example.com")
    base: dict[str, Any] = {
        "organizationId": ORG,
        "documentId": DOC,
        "actionUser": {"userId": "s"},
        "displayHeadlineMessageTemplate": "x",
        "displayBodyMessage": "y",
        "notifyUsers": [{"userId": "ann"}],
    }
    cases: list[tuple[str, dict[str, Any], str]] = [
        (ADD, {k: v for k, v in base.items() if k != "actionUser"}, "data.actionUser"),
        (ADD, {**base, "displayBodyMessage": None}, "data.displayBodyMessage"),
        (ADD, {**base, "notifyAll": False, "notifyUsers": []}, "data.notifyUsers"),
        (ADD, {**base, "notificationId": "has space"}, "data.notificationId"),
        (ADD, {**base, "notifyUsers": [{"userId": "u"}] * 101}, "data.notifyUsers"),
        (ADD, {**base, "notifyUsers": [{"name": "no id"}]}, "data.notifyUsers[0].userId"),
        (GET, {"organizationId": ORG}, "data.userId"),
        (GET, {"organizationId": ORG, "userId": "u", "pageSize": 0}, "data.pageSize"),
        (GET, {"organizationId": ORG, "userId": "u", "order": "up"}, "data.order"),
        (
            GET,
            {"organizationId": ORG, "userId": "u", "notificationIds": ["x"] * 31},
            "data.notificationIds",
        ),
        (GET, {"userId": "u"}, "data.organizationId"),
        (UPDATE, {"organizationId": ORG, "notifications": []}, "data.notifications"),
        (
            UPDATE,
            {"organizationId": ORG, "notifications": [{"isRead": True, "id": "x"}]},
            "data.notifications[0].isRead",
        ),
        (
            UPDATE,
            {"organizationId": ORG, "notifications": [{"readByUserIds": "ann", "id": "x"}]},
            "data.notifications[0].readByUserIds",
        ),
        (DELETE, {"organizationId": ORG}, "data.notificationIds"),
        (DELETE, {"organizationId": 7, "userId": "u"}, "data.organizationId"),
    ]
    for path, data, field in cases:
        response = await call(api, ws, path, **data)
        error = assert_failure(response, 400, "INVALID_ARGUMENT")
        assert field in issue_paths(error), (path, data, error)
    assert await feed(api, ws, "ann") == []


# tenancy ---------------------------------------------------------------------------------------


async def test_nothing_crosses_workspaces_or_api_keys(api: ApiClient) -> None:
    alpha = await api.create_workspace("notify-alpha@example.com")
    bravo = await api.create_workspace("notify-bravo@example.com")
    await add(api, alpha, "ann", notification_id="alpha-1", notifyAll=True)

    assert await feed(api, bravo, "ann") == []
    assert await ok(api, bravo, GET, organizationId=ORG, documentId=DOC) == []
    updated = await ok(
        api,
        bravo,
        UPDATE,
        organizationId=ORG,
        notifications=[{"id": "alpha-1", "readByUserIds": ["ann"]}],
    )
    assert updated["alpha-1"]["success"] is False
    deleted = await ok(api, bravo, DELETE, organizationId=ORG, notificationIds=["alpha-1"])
    assert deleted["alpha-1"]["success"] is False
    await add(api, bravo, "ann", notification_id="alpha-1")
    second = await create_key(api, alpha, apiKeyName="Second")
    headers = key_headers(second["apiKey"], second["authToken"])
    from_second = await call(api, alpha, GET, headers=headers, organizationId=ORG, userId="ann")
    assert from_second.status == 200, from_second.body
    assert from_second.data == []

    [entry] = await feed(api, alpha, "ann")
    assert entry["isRead"] is False
    assert entry["metadata"]["apiKey"] == alpha.api_key
    [theirs] = await feed(api, bravo, "ann")
    assert theirs["metadata"]["apiKey"] == bravo.api_key


async def test_a_user_token_reads_only_its_own_feed(api: ApiClient) -> None:
    ws = await api.create_workspace("notify-token-user@example.com")
    await add(api, ws, "ann", notification_id="for-ann")
    await add(api, ws, "bob", notification_id="for-bob")
    ann = await user_token(api, ws, "ann")

    own = await call(api, ws, GET, headers=ann, organizationId=ORG)
    assert own.status == 200, own.body
    assert [e["id"] for e in own.data] == ["for-ann"]
    by_document = await call(api, ws, GET, headers=ann, organizationId=ORG, documentId=DOC)
    assert [e["id"] for e in by_document.data] == ["for-ann"]
    others = await call(api, ws, GET, headers=ann, organizationId=ORG, userId="bob")
    assert_failure(others, 403, "PERMISSION_DENIED")
    for path, data in (
        (ADD, {"organizationId": ORG}),
        (UPDATE, {"organizationId": ORG, "notifications": [{"id": "for-bob"}]}),
        (DELETE, {"organizationId": ORG, "notificationIds": ["for-bob"]}),
    ):
        assert_failure(await call(api, ws, path, headers=ann, **data), 403, "PERMISSION_DENIED")
    assert [e["id"] for e in await feed(api, ws, "bob")] == ["for-bob"]
