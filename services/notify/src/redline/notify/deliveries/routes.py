"""The URL map of webhook deliveries: /v2/webhooks/deliveries/list|retry."""

from __future__ import annotations

from redline.envelope import Endpoint
from redline.notify.app_keys import DELIVERIES
from redline.notify.deliveries.service import DeliveryService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/webhooks/deliveries/list",
        DELIVERIES,
        DeliveryService.list,
        paged=True,
        message="Webhook deliveries retrieved successfully.",
        summary="List the API key's webhook deliveries and their attempts, newest first",
        tags=("webhooks",),
    ),
    Endpoint.of(
        "/v2/webhooks/deliveries/retry",
        DELIVERIES,
        DeliveryService.retry,
        message="Webhook deliveries queued for retry.",
        summary="Send failed or waiting deliveries again now, with a fresh retry schedule",
        tags=("webhooks",),
    ),
]
