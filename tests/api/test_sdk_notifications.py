"""The official SDK's in-app notification methods and the workspace's notification config
against Redline, unchanged but for its base URL."""

from __future__ import annotations

import pytest
from velt_py.models import (
    AddNotificationsRequest,
    DeleteNotificationsRequest,
    GetNotificationConfigRequest,
    GetNotificationsRequest,
    GetWorkspaceNotificationConfigRequest,
    SetNotificationConfigRequest,
    UpdateNotificationsRequest,
    UpdateWorkspaceNotificationConfigRequest,
)

from redline.testing.api import ApiClient, StartApi
from tests.api.sdk_support import Sdk, sdk_for

SCOPE = {"organizationId": "acme", "documentId": "contract"}


@pytest.fixture
async def sdk(
    target_url: str | None, start_api: StartApi, api: ApiClient, monkeypatch: pytest.MonkeyPatch
) -> Sdk:
    return await sdk_for(target_url, start_api, api, monkeypatch)


async def test_a_notification_from_add_to_delete(sdk: Sdk) -> None:
    workspace, notifications = sdk.api.workspace, sdk.api.notifications
    await sdk.ok(
        workspace.updateNotificationConfig,
        UpdateWorkspaceNotificationConfigRequest(useNotificationService=True),
    )
    config = await sdk.ok(workspace.getNotificationConfig, GetWorkspaceNotificationConfigRequest())
    assert config["useNotificationService"] is True

    await sdk.ok(
        notifications.addNotifications,
        AddNotificationsRequest(
            **SCOPE,
            notificationId="share-1",
            actionUser={"userId": "ana", "name": "Ana"},
            displayHeadlineMessageTemplate="{actionUser} shared the contract",
            displayBodyMessage="Please review clause 4.",
            notifyUsers=[{"userId": "bo"}],
            createOrganization=True,
            createDocument=True,
        ),
    )
    feed = await sdk.ok(
        notifications.getNotifications, GetNotificationsRequest(**SCOPE, userId="bo")
    )
    assert [(n["id"], n["isRead"]) for n in feed] == [("share-1", False)]
    await sdk.ok(
        notifications.updateNotifications,
        UpdateNotificationsRequest(
            **SCOPE, notifications=[{"id": "share-1", "readByUserIds": ["bo"]}]
        ),
    )
    feed = await sdk.ok(
        notifications.getNotifications, GetNotificationsRequest(**SCOPE, userId="bo")
    )
    assert [n["isRead"] for n in feed] == [True]

    await sdk.ok(
        notifications.setNotificationConfig,
        SetNotificationConfigRequest(
            organizationId="acme", userIds=["bo"], config={"inbox": "MINE", "email": "NONE"}
        ),
    )
    preferences = await sdk.ok(
        notifications.getNotificationConfig,
        GetNotificationConfigRequest(
            organizationId="acme", userId="bo", getOrganizationConfig=True
        ),
    )
    assert "MINE" in str(preferences)
    await sdk.ok(
        notifications.deleteNotifications,
        DeleteNotificationsRequest(**SCOPE, notificationIds=["share-1"]),
    )
    feed = await sdk.ok(
        notifications.getNotifications, GetNotificationsRequest(**SCOPE, userId="bo")
    )
    assert feed == []
