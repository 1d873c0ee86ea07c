"""Identity routes: per API key, the allowed domains and the webhook, advanced webhook and
activity configuration."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.handlers import config as config_handlers
from redline.identity.models import config as config_models
from redline.identity.models.common import Empty

CONFIG_TAG = ("config",)
CONFIG: list[Endpoint] = [
    Endpoint(
        "/v2/workspace/domains/get",
        config_handlers.get_domains,
        Empty,
        config_models.AllowedDomains,
        auth=AuthLevel.API_KEY,
        message="Domains retrieved successfully.",
        summary="List the API key's allowed domains",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/domains/add",
        config_handlers.add_domains,
        config_models.DomainsChange,
        config_models.DomainsAdded,
        auth=AuthLevel.API_KEY,
        message="Domain(s) added successfully to allowed domains.",
        summary="Allow more domains; INTERNAL with details when some were there already",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/domains/delete",
        config_handlers.delete_domains,
        config_models.DomainsChange,
        config_models.DomainsDeleted,
        auth=AuthLevel.API_KEY,
        message="Domain(s) deleted successfully from allowed domains.",
        summary="Remove allowed domains; entries not allowed are skipped",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/webhookconfig/get",
        config_handlers.get_webhook_config,
        Empty,
        config_models.WebhookConfig,
        auth=AuthLevel.API_KEY,
        message="Webhook config retrieved successfully.",
        summary="Get the basic webhook configuration, defaults filled in",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/webhookconfig/update",
        config_handlers.update_webhook_config,
        config_models.UpdateWebhookConfig,
        config_models.WebhookConfig,
        auth=AuthLevel.API_KEY,
        message="Webhook config updated successfully.",
        summary="Deep-merge into the basic webhook configuration; defaults seeded on first enable",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/advancedwebhookconfig/get",
        config_handlers.get_advanced_webhook_config,
        Empty,
        config_models.AdvancedWebhookConfig,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook config retrieved successfully.",
        summary="Get the advanced webhook configuration, defaults filled in",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/advancedwebhookconfig/update",
        config_handlers.update_advanced_webhook_config,
        config_models.UpdateAdvancedWebhookConfig,
        config_models.AdvancedWebhookConfig,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook config updated successfully.",
        summary="Update the advanced webhook configuration; the first update must enable it",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/activityconfig/get",
        config_handlers.get_activity_config,
        Empty,
        config_models.ActivityConfig,
        auth=AuthLevel.API_KEY,
        message="Activity config retrieved successfully.",
        summary="Get the activity log configuration",
        tags=CONFIG_TAG,
    ),
    Endpoint(
        "/v2/workspace/activityconfig/update",
        config_handlers.update_activity_config,
        config_models.UpdateActivityConfig,
        config_models.ActivityConfig,
        auth=AuthLevel.API_KEY,
        message="Activity config updated successfully.",
        summary="Deep-merge into the activity log configuration; defaults seeded on first enable",
        tags=CONFIG_TAG,
    ),
]
