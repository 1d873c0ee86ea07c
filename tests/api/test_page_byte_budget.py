"""Pages end at a byte budget as well as at their size: with rows big enough that a few fill
REDLINE_PAGE_BYTE_BUDGET, a page stops early, after at least one row, and following its
nextPageToken yields every row exactly once, in order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from redline.testing.api import ApiClient, Response, Workspace
from tests.api import activity_support, notification_support
from tests.api.comments_add_support import add as add_annotations
from tests.api.comments_add_support import annotation, comment

# Each row below carries about 200 kB, so a budget of 500 kB holds two of them.
BUDGET = 500_000
BIG = 200_000
ROWS = 5
ORG = "acme"

Get = Callable[[str | None], Awaitable[Response]]


async def pages(get: Get) -> list[list[dict[str, Any]]]:
    """Every page, following nextPageToken until there is none (bounded: never more pages than
    rows)."""
    found: list[list[dict[str, Any]]] = []
    token: str | None = None
    for _ in range(ROWS + 1):
        response = await get(token)
        assert response.status == 200, response.body
        assert len(msgspec.json.encode(response.body)) <= BUDGET + BIG + 10_000
        found.append(response.data)
        token = response.result.get("nextPageToken")
        if token is None:
            return found
    raise AssertionError("the pages did not end")


def assert_every_row_once(found: list[list[dict[str, Any]]], ids: list[str], key: str) -> None:
    assert [len(page) for page in found] == [2, 2, 1]
    assert [row[key] for page in found for row in page] == ids


async def test_annotations_pages_end_at_the_byte_budget(start_api: Any) -> None:
    api: ApiClient = await start_api(page_byte_budget=BUDGET)
    ws = await api.create_workspace("big-annotations@example.com")
    ids = [f"a{i}" for i in range(ROWS)]
    for annotation_id in ids:
        big = annotation(
            comment(text="a" * (BIG // 2)),
            comment(text="b" * (BIG // 2)),
            annotationId=annotation_id,
        )
        added = await add_annotations(api, ws, big)
        assert added.status == 200, added.body

    async def get(token: str | None) -> Response:
        data: dict[str, Any] = {"organizationId": ORG, "documentId": "d1", "order": "asc"}
        if token is not None:
            data["pageToken"] = token
        return await api.post("/v2/commentannotations/get", data, headers=ws.key_headers)

    found = await pages(get)

    assert_every_row_once(found, ids, "annotationId")


async def test_a_row_larger_than_the_budget_still_makes_a_page(start_api: Any) -> None:
    api: ApiClient = await start_api(page_byte_budget=1000)
    ws = await api.create_workspace("one-big-row@example.com")
    for _ in range(2):
        added = await add_annotations(api, ws, annotation(comment(text="c" * 5000)))
        assert added.status == 200, added.body

    async def get(token: str | None) -> Response:
        data: dict[str, Any] = {"organizationId": ORG, "documentId": "d1"}
        if token is not None:
            data["pageToken"] = token
        return await api.post("/v2/commentannotations/get", data, headers=ws.key_headers)

    found = await pages(get)

    assert [len(page) for page in found] == [1, 1]


async def test_notification_pages_end_at_the_byte_budget(start_api: Any) -> None:
    api: ApiClient = await start_api(page_byte_budget=BUDGET)
    ws = await api.create_workspace("big-notifications@example.com")
    ids = [
        await notification_support.add(
            api,
            ws,
            "ann",
            notification_id=f"n{i}",
            location={"id": f"loc{i}", "note": "n" * BIG},
        )
        for i in range(ROWS)
    ]

    async def get(token: str | None) -> Response:
        data: dict[str, Any] = {"organizationId": ORG, "userId": "ann", "order": "asc"}
        if token is not None:
            data["pageToken"] = token
        return await api.post(notification_support.GET, data, headers=ws.key_headers)

    found = await pages(get)

    assert_every_row_once(found, ids, "id")


async def test_activity_pages_end_at_the_byte_budget(start_api: Any) -> None:
    api: ApiClient = await start_api(page_byte_budget=BUDGET)
    ws: Workspace = await api.create_workspace("big-activities@example.com")
    await activity_support.enable(api, ws)
    ids = [f"act{i}" for i in range(ROWS)]
    for i, activity_id in enumerate(ids):
        await activity_support.ok(
            api,
            ws,
            activity_support.ADD,
            organizationId=ORG,
            documentId="d1",
            activities=[
                {
                    "id": activity_id,
                    "featureType": "custom",
                    "actionType": "noted",
                    "targetEntityId": "t1",
                    "timestamp": 1_700_000_000_000 + i,
                    "entityData": {"note": "e" * BIG},
                }
            ],
        )

    async def get(token: str | None) -> Response:
        data: dict[str, Any] = {"organizationId": ORG, "order": "asc"}
        if token is not None:
            data["pageToken"] = token
        return await api.post(activity_support.GET, data, headers=ws.key_headers)

    found = await pages(get)

    assert_every_row_once(found, ids, "id")
