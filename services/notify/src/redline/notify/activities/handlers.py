"""HTTP handlers of /v2/activities/*: the caller and the decoded request in, the service's answer
out."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.envelope import Call, Reply, paged
from redline.notify.activities import models
from redline.notify.app_keys import ACTIVITIES


async def get_activities(call: Call, request: models.GetActivities) -> Reply[Any]:
    records, next_token = await call.app[ACTIVITIES].get(call.api_key, request)
    # The token also goes out as `pageToken`, where clients of the hosted API look for it.
    return paged(records, next_token, also_as_page_token=True)


async def add_activities(call: Call, request: models.AddActivities) -> list[msgspec.Raw]:
    return await call.app[ACTIVITIES].add(call.api_key, request)


async def update_activity(call: Call, request: models.UpdateActivity) -> models.Activity:
    return await call.app[ACTIVITIES].update(call.api_key, request)


async def delete_activities(
    call: Call, request: models.DeleteActivities
) -> dict[str, models.ItemResult]:
    return await call.app[ACTIVITIES].delete(call.api_key, request)
