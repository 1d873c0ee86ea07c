"""Paths and steps the personal data tests share."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Response, Workspace

GET = "/v2/users/data/get"
DELETE = "/v2/users/data/delete"
STATUS = "/v2/users/data/delete/status"


async def export(
    api: ApiClient, ws: Workspace, user: str, org: str = "acme", **extra: Any
) -> Response:
    return await api.post(
        GET, {"organizationId": org, "userId": user, **extra}, headers=ws.key_headers
    )


async def export_all(
    api: ApiClient, ws: Workspace, user: str, **extra: Any
) -> dict[str, list[Any]]:
    """Every page of a user's export, merged by kind."""
    merged: dict[str, list[Any]] = {}
    token: str | None = None
    while True:
        page = await export(api, ws, user, **extra, **({"pageToken": token} if token else {}))
        assert page.status == 200, page.body
        for kind, items in page.data.items():
            merged.setdefault(kind, []).extend(items)
        token = page.result.get("nextPageToken")
        if token is None:
            return merged


async def erase(api: ApiClient, ws: Workspace, *users: str, **extra: Any) -> str:
    started = await api.post(DELETE, {"userIds": list(users), **extra}, headers=ws.key_headers)
    assert started.status == 200, started.body
    job_id: str = started.data["jobId"]
    return job_id


async def status(api: ApiClient, ws: Workspace, job_id: str) -> Response:
    return await api.post(STATUS, {"jobId": job_id}, headers=ws.key_headers)


async def until_completed(
    api: ApiClient, ws: Workspace, job_id: str, timeout_s: float = 30.0
) -> dict[str, Any]:
    async with asyncio.timeout(timeout_s):
        while True:
            got = await status(api, ws, job_id)
            assert got.status == 200, got.body
            if got.data["status"] == "completed":
                state: dict[str, Any] = got.data
                return state
            await asyncio.sleep(0.05)


def comment_texts(data: dict[str, list[Any]]) -> list[str]:
    return sorted(item["comment"]["commentText"] for item in data["comments"])
