"""The URL map of activity logs: /v2/activities/get|add|update|delete."""

from __future__ import annotations

from redline.envelope import Call, Endpoint
from redline.notify.activities import models
from redline.notify.activities.service import ActivityService
from redline.notify.app_keys import ACTIVITIES

ADDED = "Activity(s) added successfully."


async def add_activities(call: Call, request: models.AddActivities) -> models.AddedActivities:
    added = await call.app[ACTIVITIES].add(call.api_key, request)
    return models.AddedActivities(success=True, message=ADDED, activities=added)


ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/activities/get",
        ACTIVITIES,
        ActivityService.get,
        paged=True,
        message="Activities retrieved successfully.",
        summary="Get an organization's activity records by document, target, type or user",
        tags=("activities",),
    ),
    Endpoint.handled(
        "/v2/activities/add",
        add_activities,
        message="Activities added successfully.",
        summary="Add activity records (an id makes adding idempotent)",
        tags=("activities",),
    ),
    Endpoint.of(
        "/v2/activities/update",
        ACTIVITIES,
        ActivityService.update,
        message="Activity updated successfully.",
        summary="Change activity records that are not immutable",
        tags=("activities",),
    ),
    Endpoint.of(
        "/v2/activities/delete",
        ACTIVITIES,
        ActivityService.delete,
        message="Activities deleted successfully.",
        summary="Delete activity records, by id, document or target, that are not immutable",
        tags=("activities",),
    ),
]
