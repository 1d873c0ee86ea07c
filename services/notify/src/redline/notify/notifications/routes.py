"""The URL map of in-app notifications: /v2/notifications/add|get|update|delete and
/v2/notifications/config/get|set."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Reply
from redline.notify.app_keys import NOTIFICATIONS, USER_CONFIGS
from redline.notify.notifications import models


async def add_notification(call: Call, request: models.AddNotification) -> models.Added:
    return await call.app[NOTIFICATIONS].add(call.api_key, request)


async def get_notifications(
    call: Call, request: models.GetNotifications
) -> Reply[list[models.Notification]]:
    return await call.app[NOTIFICATIONS].get(call.api_key, request)


async def update_notifications(
    call: Call, request: models.UpdateNotifications
) -> dict[str, models.Outcome]:
    return await call.app[NOTIFICATIONS].update(call.api_key, request)


async def delete_notifications(
    call: Call, request: models.DeleteNotifications
) -> dict[str, models.Outcome]:
    return await call.app[NOTIFICATIONS].delete(call.api_key, request)


async def get_user_config(call: Call, request: models.GetUserConfig) -> list[models.UserConfig]:
    return await call.app[USER_CONFIGS].get(call.api_key, request)


async def set_user_config(call: Call, request: models.SetUserConfig) -> dict[str, models.ConfigSet]:
    return await call.app[USER_CONFIGS].set(call.api_key, request)


TAGS = ("notifications",)
ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/notifications/add",
        add_notification,
        models.AddNotification,
        models.Added,
        message="Notification added successfully.",
        summary="Add a notification for the users named, or every user of the organization",
        tags=TAGS,
    ),
    Endpoint(
        "/v2/notifications/get",
        get_notifications,
        models.GetNotifications,
        list[models.Notification],
        paged=True,
        message="Notification(s) retrieved successfully.",
        summary="Get a user's feed (with read state) or a document's notifications",
        tags=TAGS,
        user_tokens=True,
    ),
    Endpoint(
        "/v2/notifications/update",
        update_notifications,
        models.UpdateNotifications,
        dict[str, models.Outcome],
        message="Notification(s) updated successfully.",
        summary="Change notifications and mark them read or unread for users",
        tags=TAGS,
    ),
    Endpoint(
        "/v2/notifications/delete",
        delete_notifications,
        models.DeleteNotifications,
        dict[str, models.Outcome],
        message="Notification(s) deleted successfully.",
        summary="Delete notifications, or remove them from one user's feed",
        tags=TAGS,
    ),
    Endpoint(
        "/v2/notifications/config/get",
        get_user_config,
        models.GetUserConfig,
        list[models.UserConfig],
        message="User config fetched successfully.",
        summary="Get a user's notification preferences per document or organization",
        tags=TAGS,
        user_tokens=True,
    ),
    Endpoint(
        "/v2/notifications/config/set",
        set_user_config,
        models.SetUserConfig,
        dict[str, models.ConfigSet],
        message="User config set successfully.",
        summary="Set users' notification preferences per document or organization",
        tags=TAGS,
        user_tokens=True,
    ),
]
