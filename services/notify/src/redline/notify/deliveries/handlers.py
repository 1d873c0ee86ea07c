"""HTTP handlers of the delivery endpoints."""

from __future__ import annotations

from redline.envelope import Call, Reply, paged
from redline.notify.app_keys import DELIVERIES
from redline.notify.deliveries.models import (
    Delivery,
    ListDeliveries,
    RetryDeliveries,
    RetryResult,
)


async def list_deliveries(call: Call, request: ListDeliveries) -> Reply[list[Delivery]]:
    data, next_token = await call.app[DELIVERIES].list(call.api_key, request)
    return paged(data, next_token)


async def retry_deliveries(call: Call, request: RetryDeliveries) -> dict[str, RetryResult]:
    return await call.app[DELIVERIES].retry(call.api_key, request)
