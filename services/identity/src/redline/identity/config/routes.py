"""The URL map of per-API-key configuration: /v2/workspace/domains/*, webhookconfig/*,
advancedwebhookconfig/*, activityconfig/*, emailconfig/* and notificationconfig/*."""

from __future__ import annotations

from redline.envelope import AuthLevel, Call, Endpoint
from redline.identity.app_keys import CONFIG
from redline.identity.config import models
from redline.identity.fields import Empty


async def get_domains(call: Call, request: Empty) -> models.AllowedDomains:
    return await call.app[CONFIG].get_domains(call.api_key)


async def add_domains(call: Call, request: models.DomainsChange) -> models.DomainsAdded:
    return await call.app[CONFIG].add_domains(call.api_key, request)


async def delete_domains(call: Call, request: models.DomainsChange) -> models.DomainsRemoved:
    return await call.app[CONFIG].delete_domains(call.api_key, request)


async def get_webhook_config(call: Call, request: Empty) -> models.WebhookConfig:
    return await call.app[CONFIG].get_webhook(call.api_key)


async def update_webhook_config(
    call: Call, request: models.UpdateWebhookConfig
) -> models.WebhookConfig:
    return await call.app[CONFIG].update_webhook(call.api_key, request)


async def get_advanced_webhook_config(call: Call, request: Empty) -> models.AdvancedWebhookConfig:
    return await call.app[CONFIG].get_advanced_webhook(call.api_key)


async def update_advanced_webhook_config(
    call: Call, request: models.UpdateAdvancedWebhookConfig
) -> models.AdvancedWebhookConfig:
    return await call.app[CONFIG].update_advanced_webhook(call.api_key, request)


async def get_activity_config(call: Call, request: Empty) -> models.ActivityConfig:
    return await call.app[CONFIG].get_activity(call.api_key)


async def update_activity_config(
    call: Call, request: models.UpdateActivityConfig
) -> models.ActivityConfig:
    return await call.app[CONFIG].update_activity(call.api_key, request)


async def get_email_config(call: Call, request: Empty) -> models.EmailConfig:
    return await call.app[CONFIG].get_email(call.api_key)


async def update_email_config(call: Call, request: models.UpdateEmailConfig) -> models.EmailConfig:
    return await call.app[CONFIG].update_email(call.api_key, request)


async def get_notification_config(call: Call, request: Empty) -> models.NotificationConfig:
    return await call.app[CONFIG].get_notification(call.api_key)


async def update_notification_config(
    call: Call, request: models.UpdateNotificationConfig
) -> models.NotificationConfig:
    return await call.app[CONFIG].update_notification(call.api_key, request)


CONFIG_TAG = ("config",)
ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/workspace/domains/get",
        get_domains,
        Empty,
        models.AllowedDomains,
        auth=AuthLevel.API_KEY,
        message="Allowed domains retrieved successfully.",
        summary="List the API key's allowed domains",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/domains/add",
        add_domains,
        models.DomainsChange,
        models.DomainsAdded,
        auth=AuthLevel.API_KEY,
        message="Domain(s) added successfully to allowed domains.",
        summary="Allow more domains; INTERNAL with details when some were there already",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/domains/delete",
        delete_domains,
        models.DomainsChange,
        models.DomainsRemoved,
        auth=AuthLevel.API_KEY,
        message="Domain(s) removed successfully from allowed domains.",
        summary="Remove allowed domains; INTERNAL with details when some were not there",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/webhookconfig/get",
        get_webhook_config,
        Empty,
        models.WebhookConfig,
        auth=AuthLevel.API_KEY,
        message="Webhook configuration retrieved successfully.",
        summary="Get the basic webhook configuration, defaults filled in",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/webhookconfig/update",
        update_webhook_config,
        models.UpdateWebhookConfig,
        models.WebhookConfig,
        auth=AuthLevel.API_KEY,
        message="Webhook configuration updated successfully.",
        summary="Deep-merge into the basic webhook configuration; defaults seeded on first enable",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/advancedwebhookconfig/get",
        get_advanced_webhook_config,
        Empty,
        models.AdvancedWebhookConfig,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook configuration retrieved successfully.",
        summary="Get the advanced webhook configuration, defaults filled in",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/advancedwebhookconfig/update",
        update_advanced_webhook_config,
        models.UpdateAdvancedWebhookConfig,
        models.AdvancedWebhookConfig,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook configuration updated successfully.",
        summary="Update the advanced webhook configuration; the first update must enable it",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/activityconfig/get",
        get_activity_config,
        Empty,
        models.ActivityConfig,
        auth=AuthLevel.API_KEY,
        message="Activity logs configuration retrieved successfully.",
        summary="Get the activity log configuration",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/activityconfig/update",
        update_activity_config,
        models.UpdateActivityConfig,
        models.ActivityConfig,
        auth=AuthLevel.API_KEY,
        message="Activity logs configuration updated successfully.",
        summary="Deep-merge into the activity log configuration; defaults seeded on first enable",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/emailconfig/get",
        get_email_config,
        Empty,
        models.EmailConfig,
        auth=AuthLevel.API_KEY,
        message="Email configuration retrieved successfully.",
        summary="Get the email configuration, defaults filled in",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/emailconfig/update",
        update_email_config,
        models.UpdateEmailConfig,
        models.EmailConfig,
        auth=AuthLevel.API_KEY,
        message="Email configuration updated successfully.",
        summary="Deep-merge into the email configuration; defaults seeded on first enable",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/notificationconfig/get",
        get_notification_config,
        Empty,
        models.NotificationConfig,
        auth=AuthLevel.API_KEY,
        message="Notification configuration retrieved successfully.",
        summary="Get the in-app notification configuration, defaults filled in",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/notificationconfig/update",
        update_notification_config,
        models.UpdateNotificationConfig,
        models.NotificationConfig,
        auth=AuthLevel.API_KEY,
        message="Notification configuration updated successfully.",
        summary="Deep-merge into the in-app notification configuration; triggers seeded on "
        "first enable",
        tags=CONFIG_TAG,
    ),
]
