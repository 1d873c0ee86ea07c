"""Paths and steps the in-app notification tests share."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Response, Workspace

ADD = "/v2/notifications/add"
GET = "/v2/notifications/get"
UPDATE = "/v2/notifications/update"
DELETE = "/v2/notifications/delete"
CONFIG_GET = "/v2/notifications/config/get"
CONFIG_SET = "/v2/notifications/config/set"
SERVICE_GET = "/v2/workspace/notificationconfig/get"
SERVICE_UPDATE = "/v2/workspace/notificationconfig/update"
ORG = "acme"
DOC = "d1"


async def call(
    api: ApiClient, ws: Workspace, path: str, headers: dict[str, str] | None = None, **data: Any
) -> Response:
    return await api.post(path, data, headers=headers or ws.key_headers)


async def ok(api: ApiClient, ws: Workspace, path: str, **data: Any) -> Any:
    response = await call(api, ws, path, **data)
    assert response.status == 200, response.body
    assert response.result["status"] == "success"
    return response.data


async def add(
    api: ApiClient, ws: Workspace, *users: str, notification_id: str | None = None, **data: Any
) -> str:
    """A notification for the users named (notifyAll off unless `data` says otherwise)."""
    body: dict[str, Any] = {
        "organizationId": ORG,
        "documentId": DOC,
        "actionUser": {"userId": "sender", "name": "Sender"},
        "displayHeadlineMessageTemplate": "{actionUser} pinged you",
        "displayBodyMessage": "Have a look",
        "notifyUsers": [{"userId": u} for u in users],
        "notifyAll": False,
        **data,
    }
    if notification_id is not None:
        body["notificationId"] = notification_id
    added = await ok(api, ws, ADD, **body)
    assert added["success"] is True
    notification: str = added["notificationId"]
    return notification


async def feed(api: ApiClient, ws: Workspace, user_id: str, **data: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = await ok(api, ws, GET, organizationId=ORG, userId=user_id, **data)
    return found


async def enable(api: ApiClient, ws: Workspace, **settings: Any) -> Any:
    return await ok(api, ws, SERVICE_UPDATE, useNotificationService=True, **settings)


async def wait_for_feed(
    api: ApiClient, ws: Workspace, user_id: str, count: int, timeout_s: float = 10.0
) -> list[dict[str, Any]]:
    """The user's feed once it holds at least `count` notifications."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        found = await feed(api, ws, user_id)
        if len(found) >= count:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"expected {count} notifications for {user_id}, got {found}")
        await asyncio.sleep(0.05)


WHERE = {"organizationId": ORG, "documentId": DOC}


def tagging(author: str, text: str, *tagged: str, **extra: Any) -> dict[str, Any]:
    """A comment by `author` tagging the users named, in the form both add endpoints take."""
    contacts = [
        {"text": f"@{u}", "userId": u, "contact": {"userId": u, "name": u, "email": f"{u}@x.io"}}
        for u in tagged
    ]
    return {
        "from": {"userId": author},
        "commentText": text,
        "taggedUserContacts": contacts,
        **extra,
    }


async def annotate(
    api: ApiClient, ws: Workspace, annotation_id: str, comment: dict[str, Any]
) -> None:
    await ok(
        api,
        ws,
        "/v2/commentannotations/add",
        **WHERE,
        createOrganization=True,
        createDocument=True,
        commentAnnotations=[{"annotationId": annotation_id, "commentData": [comment]}],
    )


async def settle() -> None:
    """Time for the consumer to have acted on events it will not turn into notifications."""
    await asyncio.sleep(1.0)
