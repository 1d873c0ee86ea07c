"""Users' notification preferences (/v2/notifications/config/get|set) and what they let into a
feed; the key's in-app notification settings (/v2/workspace/notificationconfig/get|update)."""

from __future__ import annotations

from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.notification_support import (
    CONFIG_GET,
    CONFIG_SET,
    DOC,
    ORG,
    SERVICE_GET,
    SERVICE_UPDATE,
    add,
    call,
    feed,
    ok,
)


async def set_config(
    api: ApiClient, ws: Workspace, users: list[str], docs: list[str] | None = None, **config: str
) -> dict[str, object]:
    data: dict[str, object] = {"organizationId": ORG, "userIds": users, "config": config}
    if docs is not None:
        data["documentIds"] = docs
    result: dict[str, object] = await ok(api, ws, CONFIG_SET, **data)
    return result


# per-user preferences --------------------------------------------------------------------------


async def test_config_is_set_per_organization_and_document_and_read_back(api: ApiClient) -> None:
    ws = await api.create_workspace("prefs@example.com")

    org_level = await set_config(api, ws, ["ann"], inbox="MINE", email="NONE")
    doc_level = await set_config(api, ws, ["ann"], [DOC], inbox="NONE")

    assert org_level == {
        "ann": {"success": True, "userId": "ann", "message": "User config set successfully."}
    }
    assert doc_level == {
        "ann": {
            "success": True,
            "userId": "ann",
            "documentId": DOC,
            "message": "User config set successfully.",
        }
    }
    response = await call(
        api,
        ws,
        CONFIG_GET,
        organizationId=ORG,
        userId="ann",
        documentIds=[DOC, "d2"],
        getOrganizationConfig=True,
    )
    assert response.result["message"] == "User config fetched successfully."
    meta = {"organizationId": ORG, "apiKey": ws.api_key, "userId": "ann"}
    assert response.data == [
        {"config": {"inbox": "MINE", "email": "NONE"}, "metadata": meta},
        {"config": {"inbox": "NONE", "email": "NONE"}, "metadata": {**meta, "documentId": DOC}},
        {"config": {"inbox": "MINE", "email": "NONE"}, "metadata": {**meta, "documentId": "d2"}},
    ]
    fresh = await ok(api, ws, CONFIG_GET, organizationId=ORG, userId="bob", documentIds=[DOC])
    assert fresh[0]["config"] == {"inbox": "ALL", "email": "ALL"}


async def test_inbox_preferences_decide_what_reaches_a_feed(api: ApiClient) -> None:
    ws = await api.create_workspace("prefs-effect@example.com")
    await set_config(api, ws, ["mine"], inbox="MINE")
    await set_config(api, ws, ["none"], inbox="NONE")
    await set_config(api, ws, ["quiet-here"], [DOC], inbox="NONE")

    named = await add(api, ws, "all", "mine", "none", "quiet-here", notification_id="named")
    everyone = await add(api, ws, notification_id="everyone", notifyAll=True)
    elsewhere = await add(api, ws, "quiet-here", notification_id="other-doc", documentId="d2")

    assert {e["id"] for e in await feed(api, ws, "all")} == {named, everyone}
    assert {e["id"] for e in await feed(api, ws, "mine")} == {named}
    assert await feed(api, ws, "none") == []
    assert {e["id"] for e in await feed(api, ws, "quiet-here")} == {elsewhere}


async def test_config_requests_are_validated(api: ApiClient) -> None:
    ws = await api.create_workspace("prefs-bad@example.com")
    cases = [
        (
            CONFIG_SET,
            {"organizationId": ORG, "userIds": ["a"], "config": {"inbox": "SOME"}},
            "data.config.inbox",
        ),
        (
            CONFIG_SET,
            {"organizationId": ORG, "userIds": [], "config": {"inbox": "ALL"}},
            "data.userIds",
        ),
        (CONFIG_SET, {"organizationId": ORG, "userIds": ["a"], "config": {}}, "data.config"),
        (CONFIG_SET, {"organizationId": ORG, "userIds": ["a"]}, "data.config"),
        (CONFIG_GET, {"organizationId": ORG, "userId": "a"}, "data.documentIds"),
        (CONFIG_GET, {"organizationId": ORG, "documentIds": [DOC]}, "data.userId"),
        (
            CONFIG_GET,
            {"organizationId": ORG, "userId": "a", "documentIds": ["d"] * 31},
            "data.documentIds",
        ),
    ]
    for path, data, field in cases:
        error = assert_failure(await call(api, ws, path, **data), 400, "INVALID_ARGUMENT")
        assert field in issue_paths(error), (path, data, error)


async def test_a_user_token_reads_and_sets_only_its_own_config(api: ApiClient) -> None:
    ws = await api.create_workspace("prefs-token@example.com")
    generated = await ok(api, ws, "/v2/auth/generate_token", userId="ann")
    ann = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": generated["token"]}
    other = await api.create_workspace("prefs-other@example.com")
    await set_config(api, other, ["ann"], inbox="NONE")

    mine = await call(
        api,
        ws,
        CONFIG_SET,
        headers=ann,
        organizationId=ORG,
        userIds=["ann"],
        config={"inbox": "MINE"},
    )
    assert mine.status == 200, mine.body
    read = await call(
        api, ws, CONFIG_GET, headers=ann, organizationId=ORG, getOrganizationConfig=True
    )
    assert read.data[0]["config"]["inbox"] == "MINE"
    assert read.data[0]["metadata"]["userId"] == "ann"
    for path, data in (
        (
            CONFIG_SET,
            {"organizationId": ORG, "userIds": ["ann", "bob"], "config": {"inbox": "NONE"}},
        ),
        (CONFIG_GET, {"organizationId": ORG, "userId": "bob", "getOrganizationConfig": True}),
    ):
        assert_failure(await call(api, ws, path, headers=ann, **data), 403, "PERMISSION_DENIED")
    bob = await ok(
        api, ws, CONFIG_GET, organizationId=ORG, userId="bob", getOrganizationConfig=True
    )
    assert bob[0]["config"]["inbox"] == "ALL"
    theirs = await ok(
        api, other, CONFIG_GET, organizationId=ORG, userId="ann", getOrganizationConfig=True
    )
    assert theirs[0]["config"]["inbox"] == "NONE"


# the key's in-app notification settings --------------------------------------------------------


async def test_workspace_notification_config_defaults_seeding_and_merge(api: ApiClient) -> None:
    ws = await api.create_workspace("service-config@example.com")

    response = await call(api, ws, SERVICE_GET)
    assert response.result["message"] == "Notification configuration retrieved successfully."
    assert response.data == {
        "useNotificationService": False,
        "notificationServiceConfig": {
            "triggers": {"comment": {}, "huddle": {}},
            "delayConfig": {"isEnabled": False, "delaySeconds": 10},
            "batchConfig": {
                "document": {"isEnabled": False, "batchWindowSeconds": 10, "maxActivities": 2},
                "user": {"isEnabled": False, "batchWindowSeconds": 10, "maxActivities": 2},
            },
        },
    }

    enabled = await call(
        api,
        ws,
        SERVICE_UPDATE,
        useNotificationService=True,
        notificationServiceConfig={
            "delayConfig": {"isEnabled": True, "delaySeconds": 30},
            "triggers": {"comment": {"comment.delete": False}},
        },
    )
    assert enabled.result["message"] == "Notification configuration updated successfully."
    settings = enabled.data["notificationServiceConfig"]
    assert enabled.data["useNotificationService"] is True
    assert settings["delayConfig"] == {"isEnabled": True, "delaySeconds": 30}
    assert settings["triggers"]["comment"]["comment.add"] is True
    assert settings["triggers"]["comment"]["comment.delete"] is False
    assert settings["triggers"]["huddle"] == {"huddle.created": True, "huddle.joined": True}

    batch = {"batchConfig": {"user": {"isEnabled": True, "maxActivities": 5}}}
    later = await ok(api, ws, SERVICE_UPDATE, notificationServiceConfig=batch)
    assert later["useNotificationService"] is True
    assert later["notificationServiceConfig"]["delayConfig"]["delaySeconds"] == 30
    assert later["notificationServiceConfig"]["batchConfig"]["user"] == {
        "isEnabled": True,
        "batchWindowSeconds": 10,
        "maxActivities": 5,
    }
    assert await ok(api, ws, SERVICE_GET) == later
    other = await api.create_workspace("service-config-other@example.com")
    assert (await ok(api, other, SERVICE_GET))["useNotificationService"] is False


async def test_workspace_notification_config_is_validated(api: ApiClient) -> None:
    ws = await api.create_workspace("service-config-bad@example.com")
    cases = [
        ({}, "data"),
        (
            {"notificationServiceConfig": {"delayConfig": {"delaySeconds": 9}}},
            "data.notificationServiceConfig.delayConfig.delaySeconds",
        ),
        (
            {"notificationServiceConfig": {"delayConfig": {"delaySeconds": 15_552_001}}},
            "data.notificationServiceConfig.delayConfig.delaySeconds",
        ),
        (
            {
                "notificationServiceConfig": {
                    "batchConfig": {"document": {"batchWindowSeconds": 604_801}}
                }
            },
            "data.notificationServiceConfig.batchConfig.document.batchWindowSeconds",
        ),
        (
            {"notificationServiceConfig": {"batchConfig": {"user": {"maxActivities": 51}}}},
            "data.notificationServiceConfig.batchConfig.user.maxActivities",
        ),
        (
            {"notificationServiceConfig": {"triggers": {"chat": {"x": True}}}},
            "data.notificationServiceConfig.triggers.chat",
        ),
        ({"useNotificationService": "yes"}, "data.useNotificationService"),
    ]
    for data, field in cases:
        response = await call(api, ws, SERVICE_UPDATE, **data)
        error = assert_failure(response, 400, "INVALID_ARGUMENT")
        assert field in issue_paths(error), (data, error)
    assert (await ok(api, ws, SERVICE_GET))["useNotificationService"] is False
