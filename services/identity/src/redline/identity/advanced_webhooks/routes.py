"""The URL map of advanced webhook endpoints: /v2/workspace/advancedwebhook/endpoints/*."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.advanced_webhooks.service import AdvancedWebhookService
from redline.identity.app_keys import ADVANCED_WEBHOOKS

PREFIX = "/v2/workspace/advancedwebhook/endpoints"
TAG = ("advanced webhooks",)
ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        f"{PREFIX}/create",
        ADVANCED_WEBHOOKS,
        AdvancedWebhookService.create,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoint created successfully.",
        summary="Add an endpoint; its signing secret is made here (read it with secret/get)",
        tags=TAG,
    ),
    Endpoint.of(
        f"{PREFIX}/get",
        ADVANCED_WEBHOOKS,
        AdvancedWebhookService.list,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoints retrieved successfully.",
        summary="List the API key's endpoints in creation order, a page at a time",
        tags=TAG,
    ),
    Endpoint.of(
        f"{PREFIX}/update",
        ADVANCED_WEBHOOKS,
        AdvancedWebhookService.update,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoint updated successfully.",
        summary="Change the fields sent (null clears an optional one); answers the endpoint",
        tags=TAG,
    ),
    Endpoint.of(
        f"{PREFIX}/delete",
        ADVANCED_WEBHOOKS,
        AdvancedWebhookService.delete,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoint deleted successfully.",
        summary="Delete an endpoint: nothing more is delivered to it, its secret is gone",
        tags=TAG,
    ),
    Endpoint.of(
        f"{PREFIX}/secret/get",
        ADVANCED_WEBHOOKS,
        AdvancedWebhookService.secret,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoint secret retrieved successfully.",
        summary="The endpoint's Standard Webhooks signing secret (whsec_…)",
        tags=TAG,
    ),
]
