"""The notify service's whole URL map (decisions §3)."""

from __future__ import annotations

from redline.envelope import Endpoint
from redline.notify.activities import handlers as activity_handlers
from redline.notify.activities import models as activity_models
from redline.notify.deliveries import handlers as delivery_handlers
from redline.notify.deliveries import models as delivery_models

# /v2/activities/get|add|update|delete.
ACTIVITIES: list[Endpoint] = [
    Endpoint(
        "/v2/activities/get",
        activity_handlers.get_activities,
        activity_models.GetActivities,
        list[activity_models.Activity],
        paged=True,
        message="Activities retrieved successfully.",
        summary="Get an organization's activity records by document, target, type or user",
        tags=("activities",),
    ),
    Endpoint(
        "/v2/activities/add",
        activity_handlers.add_activities,
        activity_models.AddActivities,
        list[activity_models.Activity],
        message="Activities added successfully.",
        summary="Add custom activity records (an id makes adding idempotent)",
        tags=("activities",),
    ),
    Endpoint(
        "/v2/activities/update",
        activity_handlers.update_activity,
        activity_models.UpdateActivity,
        activity_models.Activity,
        message="Activity updated successfully.",
        summary="Change an activity record that is not immutable",
        tags=("activities",),
    ),
    Endpoint(
        "/v2/activities/delete",
        activity_handlers.delete_activities,
        activity_models.DeleteActivities,
        dict[str, activity_models.ItemResult],
        message="Activities deleted successfully.",
        summary="Delete activity records that are not immutable",
        tags=("activities",),
    ),
]

# /v2/webhooks/deliveries/list|retry.
DELIVERIES: list[Endpoint] = [
    Endpoint(
        "/v2/webhooks/deliveries/list",
        delivery_handlers.list_deliveries,
        delivery_models.ListDeliveries,
        list[delivery_models.Delivery],
        paged=True,
        message="Webhook deliveries retrieved successfully.",
        summary="List the API key's webhook deliveries and their attempts, newest first",
        tags=("webhooks",),
    ),
    Endpoint(
        "/v2/webhooks/deliveries/retry",
        delivery_handlers.retry_deliveries,
        delivery_models.RetryDeliveries,
        dict[str, delivery_models.RetryResult],
        message="Webhook deliveries queued for retry.",
        summary="Send failed or waiting deliveries again now, with a fresh retry schedule",
        tags=("webhooks",),
    ),
]

ENDPOINTS = [*ACTIVITIES, *DELIVERIES]
