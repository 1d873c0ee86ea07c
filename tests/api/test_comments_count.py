"""`/v2/commentannotations/count/get`: totals per document, and `unread` — annotations the user
neither wrote nor was shown by a get with their own user token."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace
from tests.api.comments_rows import insert, row

COUNT = "/v2/commentannotations/count/get"
GET = "/v2/commentannotations/get"


def as_user(ws: Workspace, token: str) -> dict[str, str]:
    return {"x-redline-api-key": ws.api_key, "x-redline-auth-token": token}


async def token_for(api: ApiClient, ws: Workspace, user_id: str) -> str:
    response = await api.post(
        "/v2/auth/generate_token", {"userId": user_id}, headers=ws.key_headers
    )
    assert response.status == 200, response.body
    token: str = response.data["token"]
    return token


async def seeded(api: ApiClient, database_url: str) -> Workspace:
    ws = await api.create_workspace("count@example.com")
    await insert(
        database_url,
        [
            row(ws, "a1", doc="d1", author="alice", status="open"),
            row(ws, "a2", doc="d1", author="bob", status="open"),
            row(ws, "a3", doc="d1", author="carol", status="closed"),
            row(ws, "a4", doc="d2", author="bob"),
            row(ws, "a5", doc="d2", author="bob", visibility="restricted"),
        ],
    )
    return ws


async def count(api: ApiClient, headers: dict[str, str], **data: Any) -> Response:
    return await api.post(COUNT, {"organizationId": "acme", **data}, headers=headers)


async def test_totals_and_unread_per_document(api: ApiClient, database_url: str) -> None:
    ws = await seeded(api, database_url)

    response = await count(api, ws.key_headers, documentIds=["d1", "d2", "d9"], userId="alice")
    open_only = await count(
        api, ws.key_headers, documentIds=["d1"], userId="alice", statusIds=["open"]
    )

    assert response.status == 200, response.body
    assert response.data == {
        "d1": {"total": 3, "unread": 2},
        "d2": {"total": 2, "unread": 2},
        "d9": {"total": 0, "unread": 0},
    }
    assert open_only.data == {"d1": {"total": 2, "unread": 1}}


async def test_a_users_own_get_marks_what_it_shows_as_viewed(
    api: ApiClient, database_url: str
) -> None:
    ws = await seeded(api, database_url)
    alice = as_user(ws, await token_for(api, ws, "alice"))

    # The API key's own token reads without marking anything.
    await api.post(GET, {"organizationId": "acme"}, headers=ws.key_headers)
    before = await count(api, ws.key_headers, documentIds=["d1", "d2"], userId="alice")
    shown = await api.post(
        GET, {"organizationId": "acme", "documentId": "d1", "statusIds": ["open"]}, headers=alice
    )
    after = await count(api, alice, documentIds=["d1", "d2"])
    for_bob = await count(api, ws.key_headers, documentIds=["d1"], userId="bob")

    assert before.data == {"d1": {"total": 3, "unread": 2}, "d2": {"total": 2, "unread": 2}}
    assert [a["annotationId"] for a in shown.data] == ["a1", "a2"]
    # a3 was not shown; d2's restricted a5 is neither counted nor shown to alice.
    assert after.data == {"d1": {"total": 3, "unread": 1}, "d2": {"total": 1, "unread": 1}}
    assert for_bob.data == {"d1": {"total": 3, "unread": 2}}


async def test_a_page_marks_only_the_rows_it_shows(api: ApiClient, database_url: str) -> None:
    ws = await seeded(api, database_url)
    alice = as_user(ws, await token_for(api, ws, "alice"))

    # One timestamp: a1 (alice's own) comes first, a2 and a3 (unread) after it.
    first = await api.post(
        GET, {"organizationId": "acme", "documentId": "d1", "pageSize": 1}, headers=alice
    )
    after_first = await count(api, alice, documentIds=["d1"])
    second = await api.post(
        GET,
        {
            "organizationId": "acme",
            "documentId": "d1",
            "pageSize": 1,
            "pageToken": first.result["nextPageToken"],
        },
        headers=alice,
    )
    after_second = await count(api, alice, documentIds=["d1"])

    assert [a["annotationId"] for a in first.data] == ["a1"]
    assert after_first.data == {"d1": {"total": 3, "unread": 2}}
    assert [a["annotationId"] for a in second.data] == ["a2"]
    assert after_second.data == {"d1": {"total": 3, "unread": 1}}


async def test_who_may_count_for_whom(api: ApiClient, database_url: str) -> None:
    ws = await seeded(api, database_url)
    alice = as_user(ws, await token_for(api, ws, "alice"))

    other_user = await count(api, alice, documentIds=["d1"], userId="bob")
    no_user = await count(api, ws.key_headers, documentIds=["d1"])
    own = await count(api, alice, documentIds=["d1"], userId="alice")

    assert other_user.status == 403
    assert other_user.error["status"] == "PERMISSION_DENIED"
    assert no_user.status == 400
    assert no_user.error["details"]["issues"][0]["path"] == "data.userId"
    assert own.data == {"d1": {"total": 3, "unread": 2}}


async def test_limits_and_tenancy(api: ApiClient, database_url: str) -> None:
    ws = await seeded(api, database_url)
    other = await api.create_workspace("count-other@example.com")

    too_many = await count(
        api, ws.key_headers, documentIds=[f"d{i}" for i in range(31)], userId="alice"
    )
    none = await count(api, ws.key_headers, documentIds=[], userId="alice")
    foreign = await count(api, other.key_headers, documentIds=["d1"], userId="alice")

    assert too_many.status == 400
    assert too_many.error["details"]["issues"][0]["path"] == "data.documentIds"
    assert none.status == 400
    assert foreign.data == {"d1": {"total": 0, "unread": 0}}
