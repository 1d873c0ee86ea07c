"""The URL map of in-app notifications: /v2/notifications/add|get|update|delete and
/v2/notifications/config/get|set."""

from __future__ import annotations

from redline.envelope import Endpoint
from redline.notify.app_keys import NOTIFICATIONS, USER_CONFIGS
from redline.notify.notifications.service import NotificationService
from redline.notify.notifications.user_config import UserConfigService

TAGS = ("notifications",)
ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/notifications/add",
        NOTIFICATIONS,
        NotificationService.add,
        message="Notification added successfully.",
        summary="Add a notification for the users named, or every user of the organization",
        tags=TAGS,
    ),
    Endpoint.of(
        "/v2/notifications/get",
        NOTIFICATIONS,
        NotificationService.get,
        paged=True,
        message="Notification(s) retrieved successfully.",
        summary="Get a user's feed (with read state) or a document's notifications",
        tags=TAGS,
        user_tokens=True,
    ),
    Endpoint.of(
        "/v2/notifications/update",
        NOTIFICATIONS,
        NotificationService.update,
        message="Notification(s) updated successfully.",
        summary="Change notifications and mark them read or unread for users",
        tags=TAGS,
    ),
    Endpoint.of(
        "/v2/notifications/delete",
        NOTIFICATIONS,
        NotificationService.delete,
        message="Notification(s) deleted successfully.",
        summary="Delete notifications, or remove them from one user's feed",
        tags=TAGS,
    ),
    Endpoint.of(
        "/v2/notifications/config/get",
        USER_CONFIGS,
        UserConfigService.get,
        message="User config fetched successfully.",
        summary="Get a user's notification preferences per document or organization",
        tags=TAGS,
        user_tokens=True,
    ),
    Endpoint.of(
        "/v2/notifications/config/set",
        USER_CONFIGS,
        UserConfigService.set,
        message="User config set successfully.",
        summary="Set users' notification preferences per document or organization",
        tags=TAGS,
        user_tokens=True,
    ),
]
