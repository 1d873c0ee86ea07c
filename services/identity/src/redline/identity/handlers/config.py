"""HTTP handlers of the per-API-key configuration endpoints."""

from __future__ import annotations

from redline.envelope import Call
from redline.identity.app_keys import CONFIG
from redline.identity.models import config as models
from redline.identity.models.common import Empty


async def get_domains(call: Call, request: Empty) -> models.AllowedDomains:
    return await call.app[CONFIG].get_domains(call.api_key)


async def add_domains(call: Call, request: models.DomainsChange) -> models.DomainsAdded:
    return await call.app[CONFIG].add_domains(call.api_key, request)


async def delete_domains(call: Call, request: models.DomainsChange) -> models.DomainsDeleted:
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
