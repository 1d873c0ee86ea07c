"""`/v2/commentannotations/get` and `/v2/commentannotations/comments/get` (also under `/v1/`):
every filter, the limits, paging, page tokens, what a user token may see, and tenancy."""

from __future__ import annotations

from typing import Any

import pytest

from redline.testing.api import ApiClient, Response, Workspace
from tests.api.comments_rows import insert, row

GET = "/v2/commentannotations/get"
COMMENTS = "/v2/commentannotations/comments/get"
COMMENTS_V1 = "/v1/commentannotations/comments/get"
T0 = 1_700_000_000_000
AGENT = {
    "agentId": "spell",
    "agentType": "built-in",
    "agentSource": "svc",
    "executionId": "exec_1_a",
    "reason": {"title": "Typo", "description": "d", "severity": "low"},
}
EXTERNAL = {
    "agentName": "Linter",
    "agentType": "external",
    "agentSource": "external",
    "executionId": "exec_2_b",
    "reason": {"title": "Lint", "description": "d", "severity": "info"},
}


def ids(response: Response) -> list[str | None]:
    assert response.status == 200, response.body
    return [None if a is None else a["annotationId"] for a in response.data]


def failure(response: Response, http_status: int, code: str) -> dict[str, Any]:
    assert response.status == http_status, response.body
    error: dict[str, Any] = response.error
    assert error["status"] == code
    return error


async def seeded(api: ApiClient, database_url: str) -> Workspace:
    """Eight annotations in acme (d1, d2, d3), one second apart: a1 oldest, a8 newest."""
    ws = await api.create_workspace("reader@example.com")
    rows = [
        row(ws, "a1", doc="d1", at=T0, location="loc1", status="open", author="alice"),
        row(
            ws,
            "a2",
            doc="d1",
            at=T0 + 1000,
            location="loc2",
            status="closed",
            author="bob",
            resolved_by="carol",
            mentions=("dave",),
        ),
        row(ws, "a3", doc="d2", at=T0 + 2000, status="open", author="carol", mentions=("erin",)),
        row(ws, "a4", doc="d2", at=T0 + 3000, author="alice", agent=AGENT),
        row(ws, "a5", doc="d3", at=T0 + 4000, author="bob", agent=AGENT, suggestion="accepted"),
        row(ws, "a6", doc="d3", at=T0 + 5000, author="bob", agent=EXTERNAL),
        row(ws, "a7", doc="d1", at=T0 + 6000, updated=T0 + 9000, location="loc1"),
        row(ws, "a8", doc="d2", at=T0 + 7000, status="review", suggestion="pending"),
    ]
    await insert(database_url, rows)
    return ws


async def get(api: ApiClient, ws: Workspace, **data: Any) -> Response:
    return await api.post(GET, {"organizationId": "acme", **data}, headers=ws.key_headers)


async def test_an_annotation_comes_back_as_stored(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("stored@example.com")
    stored = row(ws, "x1", location="loc1", status="open", assignee="bob", mentions=("dave",))
    await insert(database_url, [stored])

    response = await get(api, ws, documentId="d1")

    assert response.status == 200, response.body
    assert response.result["status"] == "success"
    assert response.data == [stored.body]
    assert "nextPageToken" not in response.result


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({}, ["a7", "a8", "a6", "a5", "a4", "a3", "a2", "a1"]),
        ({"documentId": "d1"}, ["a7", "a2", "a1"]),
        ({"documentIds": ["d2", "d3"]}, ["a8", "a6", "a5", "a4", "a3"]),
        ({"documentId": "d1", "documentIds": ["d3"]}, ["a7", "a6", "a5", "a2", "a1"]),
        ({"locationIds": ["loc1"]}, ["a7", "a1"]),
        ({"userIds": ["bob"]}, ["a6", "a5", "a2"]),
        ({"mentionedUserIds": ["erin", "zed"]}, ["a3"]),
        ({"resolvedBy": "carol"}, ["a2"]),
        ({"statusIds": ["open", "review"]}, ["a8", "a3", "a1"]),
        ({"statusId": "closed"}, ["a2"]),
        ({"statusId": "closed", "statusIds": ["review"]}, ["a8", "a2"]),
        ({"agentId": "spell"}, ["a5", "a4"]),
        ({"executionId": "exec_2_b"}, ["a6"]),
        ({"agentType": "external"}, ["a6"]),
        ({"agentSource": "svc"}, ["a5", "a4"]),
        ({"agentSuggestions": True}, ["a6", "a4"]),
        ({"agentComments": True}, ["a6", "a5", "a4"]),
        ({"agentComments": True, "agentSuggestions": False}, ["a6", "a5", "a4"]),
        ({"updatedAfter": T0 + 5000}, ["a7", "a8", "a6"]),
        ({"updatedBefore": T0 + 1000}, ["a2", "a1"]),
        ({"updatedAfter": T0 + 1000, "updatedBefore": T0 + 3000}, ["a4", "a3", "a2"]),
        ({"createdAfter": T0 + 6000}, ["a7", "a8"]),
        ({"createdBefore": T0 + 6000, "createdAfter": T0 + 5000}, ["a7", "a6"]),
        ({"order": "asc"}, ["a1", "a2", "a3", "a4", "a5", "a6", "a8", "a7"]),
        ({"documentId": "d2", "order": "asc", "statusIds": ["open"]}, ["a3"]),
        ({"documentId": "nope"}, []),
    ],
)
async def test_each_filter(
    api: ApiClient, database_url: str, data: dict[str, Any], expected: list[str]
) -> None:
    ws = await seeded(api, database_url)

    assert ids(await get(api, ws, **data)) == expected


async def test_agent_annotations_are_suggestions_from_an_agent(
    api: ApiClient, database_url: str
) -> None:
    ws = await seeded(api, database_url)

    response = await get(api, ws, agentComments=True)

    assert {(a["type"], a["sourceType"]) for a in response.data} == {("suggestion", "agent")}
    assert response.data[0]["agent"]["agentName"] == "Linter"


async def test_at_most_one_agent_filter(api: ApiClient, database_url: str) -> None:
    ws = await seeded(api, database_url)

    error = failure(
        await get(api, ws, agentId="spell", agentSuggestions=True), 400, "INVALID_ARGUMENT"
    )

    assert "agentId" in error["message"]
    assert "agentSuggestions" in error["message"]
    assert {i["path"] for i in error["details"]["issues"]} == {
        "data.agentId",
        "data.agentSuggestions",
    }


@pytest.mark.parametrize(
    "field", ["documentIds", "locationIds", "annotationIds", "userIds", "mentionedUserIds"]
)
async def test_thirty_ids_at_most(api: ApiClient, field: str) -> None:
    ws = await api.create_workspace("limits@example.com")
    thirty = [f"id{i}" for i in range(30)]

    ok = await get(api, ws, **{field: thirty})
    error = failure(
        await get(api, ws, **{field: [*thirty, "one-too-many"]}), 400, "INVALID_ARGUMENT"
    )

    assert ok.status == 200, ok.body
    assert error["details"]["issues"][0]["path"] == f"data.{field}"


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"pageSize": 0}, "data.pageSize"),
        ({"pageSize": 1001}, "data.pageSize"),
        ({"order": "sideways"}, "data.order"),
        ({"agentType": "robot"}, "data.agentType"),
        ({"surprise": 1}, "data.surprise"),
        ({"organizationId": ""}, "data.organizationId"),
    ],
)
async def test_invalid_requests_name_the_field(
    api: ApiClient, data: dict[str, Any], path: str
) -> None:
    ws = await api.create_workspace("invalid@example.com")

    error = failure(await get(api, ws, **data), 400, "INVALID_ARGUMENT")

    assert error["details"]["issues"][0]["path"] == path


async def test_unknown_annotation_ids_are_null_in_position(
    api: ApiClient, database_url: str
) -> None:
    ws = await seeded(api, database_url)

    response = await get(
        api, ws, annotationIds=["a3", "ghost", "a1", "a3", "a5"], userIds=["bob", "carol"]
    )

    # a1 exists but is filtered out by userIds: nothing matched there either.
    assert ids(response) == ["a3", None, None, "a3", "a5"]


async def test_grouped_by_document(api: ApiClient, database_url: str) -> None:
    ws = await seeded(api, database_url)

    response = await get(api, ws, groupByDocumentId=True, documentIds=["d1", "d3", "d9"])

    assert response.status == 200, response.body
    grouped = {d: [a["annotationId"] for a in v] for d, v in response.data.items()}
    assert grouped == {"d1": ["a7", "a2", "a1"], "d3": ["a6", "a5"]}


async def test_folder_means_the_documents_in_it(api: ApiClient, database_url: str) -> None:
    ws = await seeded(api, database_url)
    added = await api.post(
        "/v2/organizations/documents/add",
        {
            "organizationId": "acme",
            "createOrganization": True,
            "folderId": "f1",
            "createFolder": True,
            "documents": [{"documentId": "d2"}, {"documentId": "d3"}],
        },
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body

    assert ids(await get(api, ws, folderId="f1", agentSource="svc")) == ["a5", "a4"]
    assert ids(await get(api, ws, folderId="f1", documentIds=["d1", "d3"])) == ["a6", "a5"]
    assert ids(await get(api, ws, folderId="nowhere")) == []


async def test_paging_through_2500_annotations(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("pages@example.com")
    # Many share a lastUpdated, so the tie-break on annotationId has to hold pages apart.
    rows = [
        row(ws, f"p{i:04d}", number=i, at=T0 + (i // 7) * 1000, status="open" if i % 2 else None)
        for i in range(2500)
    ]
    await insert(database_url, rows)

    for order in ("desc", "asc"):
        seen: list[str] = []
        token: str | None = None
        pages = 0
        while True:
            extra = {} if token is None else {"pageToken": token}
            response = await get(api, ws, documentId="d1", pageSize=1000, order=order, **extra)
            assert response.status == 200, response.body
            pages += 1
            seen += [a["annotationId"] for a in response.data]
            token = response.result.get("nextPageToken")
            if token is None:
                break
        assert pages == 3
        assert len(seen) == 2500
        assert set(seen) == {r.annotation_id for r in rows}
        stamps = [T0 + (int(i[1:]) // 7) * 1000 for i in seen]
        assert stamps == sorted(stamps, reverse=order == "desc")

    first = await get(api, ws, documentId="d1", statusIds=["open"], pageSize=1000)
    second = await get(
        api, ws, documentId="d1", statusIds=["open"], pageToken=first.result["nextPageToken"]
    )
    assert len(first.data) == 1000
    assert len(second.data) == 250
    assert "nextPageToken" not in second.result


async def test_default_page_size_is_1000(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("default-page@example.com")
    await insert(database_url, [row(ws, f"q{i:04d}", at=T0 + i) for i in range(1001)])

    response = await get(api, ws)

    assert len(response.data) == 1000
    assert "nextPageToken" in response.result


async def test_tampered_and_foreign_page_tokens(api: ApiClient, database_url: str) -> None:
    ws = await seeded(api, database_url)
    other = await api.create_workspace("other@example.com")
    token = (await get(api, ws, pageSize=2)).result["nextPageToken"]
    flipped = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]

    for bad in (flipped, "not a token", token + "x"):
        error = failure(await get(api, ws, pageToken=bad), 400, "INVALID_ARGUMENT")
        assert error["details"]["issues"][0]["path"] == "data.pageToken"
    failure(
        await api.post(
            GET, {"organizationId": "acme", "pageToken": token}, headers=other.key_headers
        ),
        400,
        "INVALID_ARGUMENT",
    )
    failure(await get(api, ws, pageToken=token, order="asc"), 400, "INVALID_ARGUMENT")
    failure(
        await api.post(GET, {"organizationId": "beta", "pageToken": token}, headers=ws.key_headers),
        400,
        "INVALID_ARGUMENT",
    )
    assert ids(await get(api, ws, pageSize=2, pageToken=token)) == ["a6", "a5"]


async def test_another_workspace_sees_nothing(api: ApiClient, database_url: str) -> None:
    ws = await seeded(api, database_url)
    other = await api.create_workspace("tenant-b@example.com")

    response = await api.post(
        GET, {"organizationId": "acme", "annotationIds": ["a1", "a2"]}, headers=other.key_headers
    )
    everything = await api.post(GET, {"organizationId": "acme"}, headers=other.key_headers)
    comments = await api.post(
        COMMENTS,
        {"organizationId": "acme", "documentId": "d1", "annotationId": "a1"},
        headers=other.key_headers,
    )

    assert ids(response) == [None, None]
    assert ids(everything) == []
    assert comments.status == 200
    assert comments.data == []
    assert ids(await get(api, ws, annotationIds=["a1"])) == ["a1"]


# comments/get ---------------------------------------------------------------------------------


async def test_comments_of_an_annotation(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("comments@example.com")
    stored = row(ws, "c1", author="alice", replies=("bob", "carol", "bob"))
    await insert(database_url, [stored])

    async def comments(**data: Any) -> Response:
        return await api.post(
            COMMENTS,
            {"organizationId": "acme", "documentId": "d1", "annotationId": "c1", **data},
            headers=ws.key_headers,
        )

    everything = await comments()
    by_user = await comments(userIds=["bob"])
    by_id = await comments(commentIds=[3, 99, 1])
    wrong_document = await comments(documentId="d2")

    assert everything.status == 200, everything.body
    first = stored.body["comments"][0]
    # The comment as stored: every field the contract and the reference list for a comment.
    assert everything.data[0] == first
    assert [c["commentId"] for c in everything.data] == [1, 2, 3, 4]
    assert [c["commentId"] for c in by_user.data] == [2, 4]
    assert [None if c is None else c["commentId"] for c in by_id.data] == [3, None, 1]
    assert wrong_document.data == []


async def test_comments_get_answers_alike_under_v1_and_v2(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("commentsv1@example.com")
    await insert(database_url, [row(ws, "c1", author="alice", replies=("bob",))])
    # The hosted SDK's GetCommentsRequest body: unset fields are left out.
    sdk_body = {
        "organizationId": "acme",
        "documentId": "d1",
        "annotationId": "c1",
        "commentIds": [2],
    }

    v2 = await api.post(COMMENTS, sdk_body, headers=ws.key_headers)
    v1 = await api.post(COMMENTS_V1, sdk_body, headers=ws.key_headers)

    assert v2.status == 200, v2.body
    assert [c["commentId"] for c in v2.data] == [2]
    assert v1.status == 200, v1.body
    assert v1.data == v2.data


async def test_openapi_lists_comments_get_and_delete_under_v1_and_v2(api: ApiClient) -> None:
    async with api.session.get(api.base_url + "/openapi.json") as response:
        doc = await response.json()

    for verb in ("get", "delete"):
        v2 = doc["paths"][f"/v2/commentannotations/comments/{verb}"]["post"]
        v1 = doc["paths"][f"/v1/commentannotations/comments/{verb}"]["post"]
        assert v2["requestBody"] == v1["requestBody"]
