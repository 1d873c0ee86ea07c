"""Paths and steps the activity-log tests share."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Response, Workspace

GET = "/v2/activities/get"
ADD = "/v2/activities/add"
UPDATE = "/v2/activities/update"
DELETE = "/v2/activities/delete"
CONFIG = "/v2/workspace/activityconfig/update"
MIGRATE = "/v2/organizations/documents/migrate"
MIGRATION_STATUS = "/v2/organizations/documents/migrate/status"
DONE = {"id": "done", "name": "Done", "type": "terminal"}
ORG = "acme"


async def call(api: ApiClient, ws: Workspace, path: str, **data: Any) -> Response:
    return await api.post(path, data, headers=ws.key_headers)


async def ok(api: ApiClient, ws: Workspace, path: str, **data: Any) -> Any:
    response = await call(api, ws, path, **data)
    assert response.status == 200, response.body
    assert response.result["status"] == "success"
    return response.data


async def enable(api: ApiClient, ws: Workspace, **settings: Any) -> None:
    await ok(api, ws, CONFIG, activityServiceConfig={"isEnabled": True, **settings})


async def get(api: ApiClient, ws: Workspace, **filters: Any) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = await ok(api, ws, GET, organizationId=ORG, **filters)
    return records


async def wait_for(
    api: ApiClient, ws: Workspace, count: int, timeout_s: float = 10.0, **filters: Any
) -> list[dict[str, Any]]:
    """The records get answers once there are at least `count` of them."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        records = await get(api, ws, **filters)
        if len(records) >= count:
            return records
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"expected {count} activity records, got {records}")
        await asyncio.sleep(0.05)


async def add_annotation(
    api: ApiClient, ws: Workspace, annotation_id: str, *, trigger: bool
) -> list[int]:
    added = await ok(
        api,
        ws,
        "/v2/commentannotations/add",
        organizationId=ORG,
        documentId="d1",
        createOrganization=True,
        createDocument=True,
        commentAnnotations=[
            {
                "annotationId": annotation_id,
                "commentData": [
                    {
                        "from": {"userId": "alice"},
                        "commentText": "Look",
                        "triggerActivities": trigger,
                    }
                ],
            }
        ],
    )
    comment_ids: list[int] = added[annotation_id]["commentIds"]
    return comment_ids


async def add(
    api: ApiClient, ws: Workspace, *activities: dict[str, Any], **data: Any
) -> list[dict[str, Any]]:
    added = await ok(api, ws, ADD, organizationId=ORG, activities=list(activities), **data)
    assert (added["success"], added["message"]) == (True, "Activity(s) added successfully.")
    records: list[dict[str, Any]] = added["activities"]
    return records


def by_action(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["actionType"]: r for r in records}


def ids(records: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in records]
