"""The URL map of webhook deliveries: /v2/webhooks/deliveries/list|retry."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Reply
from redline.notify.app_keys import DELIVERIES
from redline.notify.deliveries import models


async def list_deliveries(
    call: Call, request: models.ListDeliveries
) -> Reply[list[models.Delivery]]:
    return await call.app[DELIVERIES].list(call.api_key, request)


async def retry_deliveries(
    call: Call, request: models.RetryDeliveries
) -> dict[str, models.RetryResult]:
    return await call.app[DELIVERIES].retry(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/webhooks/deliveries/list",
        list_deliveries,
        models.ListDeliveries,
        list[models.Delivery],
        paged=True,
        message="Webhook deliveries retrieved successfully.",
        summary="List the API key's webhook deliveries and their attempts, newest first",
        tags=("webhooks",),
    ),
    Endpoint(
        "/v2/webhooks/deliveries/retry",
        retry_deliveries,
        models.RetryDeliveries,
        dict[str, models.RetryResult],
        message="Webhook deliveries queued for retry.",
        summary="Send failed or waiting deliveries again now, with a fresh retry schedule",
        tags=("webhooks",),
    ),
]
