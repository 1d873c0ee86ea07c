"""The URL map of activity logs: /v2/activities/get|add|update|delete."""

from __future__ import annotations

from redline.envelope import Call, Either, Endpoint, Reply
from redline.notify.activities import models
from redline.notify.app_keys import ACTIVITIES

ADDED = "Activity(s) added successfully."


async def get_activities(call: Call, request: models.GetActivities) -> Reply[list[models.Activity]]:
    return await call.app[ACTIVITIES].get(call.api_key, request)


async def add_activities(call: Call, request: models.AddActivities) -> models.AddedActivities:
    added = await call.app[ACTIVITIES].add(call.api_key, request)
    return models.AddedActivities(success=True, message=ADDED, activities=added)


async def update_activity(
    call: Call, request: models.UpdateActivity
) -> models.Activity | dict[str, models.Outcome]:
    return await call.app[ACTIVITIES].update(call.api_key, request)


async def delete_activities(
    call: Call, request: models.DeleteActivities
) -> dict[str, models.ItemResult]:
    return await call.app[ACTIVITIES].delete(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/activities/get",
        get_activities,
        models.GetActivities,
        list[models.Activity],
        paged=True,
        message="Activities retrieved successfully.",
        summary="Get an organization's activity records by document, target, type or user",
        tags=("activities",),
    ),
    Endpoint(
        "/v2/activities/add",
        add_activities,
        models.AddActivities,
        models.AddedActivities,
        message="Activities added successfully.",
        summary="Add activity records (an id makes adding idempotent)",
        tags=("activities",),
    ),
    Endpoint(
        "/v2/activities/update",
        update_activity,
        models.UpdateActivity,
        Either(models.Activity, dict[str, models.Outcome]),
        message="Activity updated successfully.",
        summary="Change activity records that are not immutable",
        tags=("activities",),
    ),
    Endpoint(
        "/v2/activities/delete",
        delete_activities,
        models.DeleteActivities,
        dict[str, models.ItemResult],
        message="Activities deleted successfully.",
        summary="Delete activity records, by id, document or target, that are not immutable",
        tags=("activities",),
    ),
]
