"""The reference's example requests for in-app notifications and their preferences, after the
reference's own example of turning the key's notification service on."""

from __future__ import annotations

from typing import Any

from tests.api.replay_activity_samples import ADDED
from tests.api.replay_annotation_samples import YOURS
from tests.api.replay_support import Sample

NOTIFICATIONS = "/v2/notifications"
YOUR_USER = {"userId": "yourUserId", "name": "User Name", "email": "user@example.com"}
NOTIFICATION_TOKEN = {"pageSize": 20, "pageToken": "8740648311207869"}
FOUND = ("data.0.id", "data.0.actionUser", "data.0.metadata.documentId", "data.0.timestamp")
BODY_UPDATE = {
    "id": "$notificationId",
    "displayBodyMessage": "This is body message (Secondary message)",
}


def notification_add(page: str, data: dict[str, Any]) -> Sample:
    return Sample(
        page=f"notifications/add: {page}",
        path=f"{NOTIFICATIONS}/add",
        data=data,
        fields=ADDED,
    )


NOTIFICATION_ADDS = [
    Sample(
        page="workspace/notificationconfig/update",
        path="/v2/workspace/notificationconfig/update",
        data={
            "useNotificationService": True,
            "notificationServiceConfig": {"delayConfig": {"isEnabled": True, "delaySeconds": 30}},
        },
        fields=(
            "data.useNotificationService",
            "data.notificationServiceConfig.delayConfig.delaySeconds",
        ),
    ),
    notification_add(
        "example request",
        {
            **YOURS,
            "actionUser": YOUR_USER,
            "displayHeadlineMessageTemplate": "This is main template, you can pass variables "
            "using curly brackets like this: {actionUser}, {recipientUser}, "
            "{yourCustomVariableWithStringValue}",
            "displayHeadlineMessageTemplateData": {
                "actionUser": YOUR_USER,
                "recipientUser": {
                    "userId": "recipientUserId",
                    "name": "Recipient Name",
                    "email": "recipient@example.com",
                },
                "yourCustomField": "Variable will be replaced with this text",
            },
            "displayBodyMessage": "This is body message (Secondary message)",
            "notifyUsers": [{"email": "test@example.com", "userId": "testingUserId"}, YOUR_USER],
        },
    ),
    notification_add(
        "with permission verification",
        {
            "organizationId": "org1",
            "documentId": "document3",
            "actionUser": {"userId": "1.1"},
            "verifyUserPermissions": True,
            "displayHeadlineMessageTemplate": "This is main template, you can pass variables "
            "using curly brackets like this: {actionUser}, {recipientUser}",
            "displayHeadlineMessageTemplateData": {
                "actionUser": {"userId": "1.1"},
                "recipientUser": {"userId": "2.2"},
            },
            "displayBodyMessage": "This is body message (Secondary message)",
            "notifyUsers": [{"userId": "2.2"}],
            "notifyAll": False,
        },
    ),
    notification_add(
        "with context",
        {
            "organizationId": "org1",
            "documentId": "document3",
            "actionUser": {"userId": "1.1", "name": "User One", "email": "user1@example.com"},
            "context": {"access": {"entityId": "numberOfVisitors", "dashboardId": "myDashboard"}},
            "displayHeadlineMessageTemplate": "New comment on {entityName}",
            "displayHeadlineMessageTemplateData": {"entityName": "Visitor Analytics"},
            "displayBodyMessage": "A new comment has been added to the visitor analytics dashboard",
            "notifyUsers": [{"userId": "2.2"}],
            "notifyAll": False,
        },
    ),
    notification_add(
        "with notification resolver",
        {
            **YOURS,
            "actionUser": YOUR_USER,
            "notificationId": "custom-notif-001",
            "isNotificationResolverUsed": True,
            "notificationSource": "custom",
            "notifyUsers": [{"userId": "recipientUserId", "email": "recipient@example.com"}],
            "notifyAll": False,
        },
    ),
]


def notification_get(
    page: str, data: dict[str, Any], fields: tuple[str, ...] = FOUND
) -> list[Sample]:
    """The page's example, whose `pageToken` is a placeholder no server issued (Redline's tokens
    are signed: INVALID_ARGUMENT at data.pageToken), then the same filters without it."""
    return [
        Sample(
            page=f"notifications/get: {page}",
            path=f"{NOTIFICATIONS}/get",
            data={**data, **NOTIFICATION_TOKEN},
            expect="INVALID_ARGUMENT",
        ),
        Sample(
            page=f"notifications/get: {page}, without the placeholder token",
            path=f"{NOTIFICATIONS}/get",
            data={**data, "pageSize": 20},
            fields=fields,
        ),
    ]


ORG_USER = {"organizationId": "yourOrganizationId", "userId": "yourUserId"}
AT_LOCATION = {"locationId": "yourLocationId"}
NAMED = {"notificationIds": ["$notificationId"]}

NOTIFICATION_GETS = [
    Sample(
        # The first example's notification, in the feed of yourUserId it names.
        page="notifications/get: by organizationId, documentId and userId (to paste its id)",
        path=f"{NOTIFICATIONS}/get",
        data={**YOURS, **ORG_USER, "pageSize": 20},
        fields=(*FOUND, "data.0.displayHeadlineMessageTemplate", "data.0.notifyUsers"),
        save={"notificationId": "data.0.id"},
    ),
    *notification_get("by organizationId, documentId", YOURS),
    Sample(
        page="notifications/get: by documentId and notificationIds",
        path=f"{NOTIFICATIONS}/get",
        data={**YOURS, **NAMED},
        fields=FOUND,
    ),
    # No notification of these examples has a location: the listings are empty.
    *notification_get("by documentId and locationId", {**YOURS, **AT_LOCATION}, ("data",)),
    Sample(
        page="notifications/get: by documentId, locationId and notificationIds",
        path=f"{NOTIFICATIONS}/get",
        data={**YOURS, **AT_LOCATION, **NAMED},
        fields=("data",),
    ),
    *notification_get("by organizationId and userId", ORG_USER),
    Sample(
        page="notifications/get: by userId and notificationIds",
        path=f"{NOTIFICATIONS}/get",
        data={**ORG_USER, **NAMED},
        fields=FOUND,
    ),
    *notification_get("by documentId and userId", {**YOURS, **ORG_USER}),
    *notification_get("by locationId and userId", {**ORG_USER, **AT_LOCATION}, ("data",)),
    *notification_get(
        "by documentId, locationId and userId", {**YOURS, **ORG_USER, **AT_LOCATION}, ("data",)
    ),
]

UPDATED_NOTIFICATION = ("data.${notificationId}.success", "data.${notificationId}.message")


def notification_update(
    page: str, data: dict[str, Any], fields: tuple[str, ...] = UPDATED_NOTIFICATION
) -> Sample:
    return Sample(
        page=f"notifications/update: {page}",
        path=f"{NOTIFICATIONS}/update",
        data={**data, "notifications": [BODY_UPDATE]},
        fields=fields,
    )


NOTIFICATION_UPDATES = [
    notification_update("by organizationId and documentId", YOURS),
    # A notification outside the filters is not updated: success false for it.
    notification_update("by documentId and locationId", {**YOURS, **AT_LOCATION}),
    notification_update("by documentId and userId", {**YOURS, **ORG_USER}),
    notification_update("by organizationId and userId", ORG_USER),
    notification_update(
        "by documentId, locationId and userId", {**YOURS, **ORG_USER, **AT_LOCATION}
    ),
    notification_update("with permission verification", {**YOURS, "verifyUserPermissions": True}),
]

CONFIG = {"inbox": "ALL", "email": "ALL"}

NOTIFICATION_CONFIGS = [
    Sample(
        page="notifications/config/set: document-level",
        path=f"{NOTIFICATIONS}/config/set",
        data={
            "organizationId": "org1",
            "documentIds": ["doc1"],
            "userIds": ["USER_ID1"],
            "config": CONFIG,
        },
        fields=("data.USER_ID1.success", "data.USER_ID1.userId", "data.USER_ID1.documentId"),
    ),
    Sample(
        page="notifications/config/set: organization-level",
        path=f"{NOTIFICATIONS}/config/set",
        data={"organizationId": "org1", "userIds": ["USER_ID1"], "config": CONFIG},
        fields=("data.USER_ID1.success", "data.USER_ID1.userId"),
    ),
    Sample(
        # The Postman collection's slack value is not one the reference lists (ALL, MINE, NONE).
        page="notifications/config/set: Postman form with slack MENTIONS_ONLY",
        path=f"{NOTIFICATIONS}/config/set",
        data={
            "organizationId": "yourOrganizationId",
            "documentIds": ["yourDocumentId"],
            "userIds": ["yourUserId"],
            "config": {**CONFIG, "slack": "MENTIONS_ONLY"},
        },
        expect="INVALID_ARGUMENT",
    ),
    Sample(
        page="notifications/config/get: document-level",
        path=f"{NOTIFICATIONS}/config/get",
        data={"organizationId": "org1", "documentIds": ["doc1"], "userId": "USER_ID1"},
        fields=("data.0.config.inbox", "data.0.config.email", "data.0.metadata.documentId"),
    ),
    Sample(
        page="notifications/config/get: organization-level",
        path=f"{NOTIFICATIONS}/config/get",
        data={"organizationId": "org1", "userId": "USER_ID1", "getOrganizationConfig": True},
        fields=("data.0.config.inbox", "data.0.metadata.userId"),
    ),
]

DELETED_NOTIFICATION = ("data.${notificationId}.success", "data.${notificationId}.message")


def notification_delete(
    page: str, data: dict[str, Any], fields: tuple[str, ...] = ("data",)
) -> Sample:
    return Sample(
        page=f"notifications/delete: {page}",
        path=f"{NOTIFICATIONS}/delete",
        data=data,
        fields=fields,
    )


# The narrowest filters first, so that later examples still find something; those naming a
# location find nothing (no notification here has one).
NOTIFICATION_DELETES = [
    notification_delete(
        "8. by documentId, locationId and notificationIds", {**YOURS, **AT_LOCATION, **NAMED}
    ),
    notification_delete(
        "10. by locationId, userId and notificationIds", {**ORG_USER, **AT_LOCATION, **NAMED}
    ),
    notification_delete("7. by documentId and locationId", {**YOURS, **AT_LOCATION}),
    notification_delete("9. by locationId and userId", {**ORG_USER, **AT_LOCATION}),
    notification_delete(
        "11. by documentId, locationId and userId", {**YOURS, **ORG_USER, **AT_LOCATION}
    ),
    notification_delete(
        "6. by documentId, userId and notificationIds",
        {**YOURS, **ORG_USER, **NAMED},
        DELETED_NOTIFICATION,
    ),
    notification_delete("4. by userId and notificationIds", {**ORG_USER, **NAMED}),
    notification_delete("5. by documentId and userId", {**YOURS, **ORG_USER}),
    notification_delete("3. by organizationId and userId", ORG_USER),
    Sample(
        # The Postman collection sends update's `notifications` list to delete: a field the
        # reference does not list, and Redline refuses unknown fields (INVALID_ARGUMENT).
        page="notifications/delete: Postman form with a notifications list",
        path=f"{NOTIFICATIONS}/delete",
        data={**YOURS, "userId": "yourUserId", "notifications": [BODY_UPDATE]},
        expect="INVALID_ARGUMENT",
    ),
    notification_delete(
        "2. by documentId and notificationIds", {**YOURS, **NAMED}, DELETED_NOTIFICATION
    ),
    notification_delete("1. by organizationId and documentId", YOURS),
]

NOTIFICATION_SAMPLES = [
    *NOTIFICATION_ADDS,
    *NOTIFICATION_GETS,
    *NOTIFICATION_UPDATES,
    *NOTIFICATION_CONFIGS,
    *NOTIFICATION_DELETES,
]
