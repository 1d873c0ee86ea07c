"""Counts and lookups the official Python SDK calls: /v2/users/count/get, /v2/users/doc/get and
/v2/organizations/documents/count/get."""

from __future__ import annotations

from typing import Any

import pytest

from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.config_support import call, ok


async def add_users(api: ApiClient, ws: Workspace, users: list[str], **where: Any) -> None:
    await ok(
        api,
        ws,
        "/v2/users/add",
        {
            "organizationId": "org",
            "users": [{"userId": u, "name": u.title()} for u in users],
            **where,
        },
    )


async def members_everywhere(api: ApiClient) -> Workspace:
    """org: ann and bob as members; doc-1: bob and cid; doc-2: cid; folder f: dan."""
    ws = await api.create_workspace("counts@example.com")
    await add_users(api, ws, ["ann", "bob"])
    await add_users(api, ws, ["bob", "cid"], documentId="doc-1", createDocument=True)
    await add_users(api, ws, ["cid"], documentId="doc-2", createDocument=True)
    await add_users(api, ws, ["dan"], folderId="f", createFolder=True)
    return ws


# users/count/get ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "count"),
    [
        ({}, 2),
        ({"userId": "ann"}, 1),
        ({"userId": "cid"}, 0),
        ({"documentId": "doc-1"}, 2),
        ({"documentId": "doc-2", "userId": "bob"}, 0),
        ({"allDocuments": True}, 2),
        ({"allDocuments": True, "userId": "cid"}, 1),
    ],
)
async def test_users_are_counted_at_the_level_asked(
    api: ApiClient, query: dict[str, Any], count: int
) -> None:
    ws = await members_everywhere(api)

    got = await ok(api, ws, "/v2/users/count/get", {"organizationId": "org", **query})

    assert got == {"count": count}


async def test_a_user_count_refuses_a_document_with_all_documents(api: ApiClient) -> None:
    ws = await members_everywhere(api)

    response = await call(
        api,
        ws,
        "/v2/users/count/get",
        {"organizationId": "org", "documentId": "doc-1", "allDocuments": True},
    )

    assert issue_paths(assert_failure(response, 400, "INVALID_ARGUMENT")) == ["data.allDocuments"]


async def test_counts_of_what_does_not_exist_are_not_found(api: ApiClient) -> None:
    ws = await members_everywhere(api)

    for path, data in (
        ("/v2/users/count/get", {"organizationId": "ghost"}),
        ("/v2/users/count/get", {"organizationId": "org", "documentId": "ghost"}),
        ("/v2/users/doc/get", {"organizationId": "ghost"}),
        ("/v2/organizations/documents/count/get", {"organizationId": "ghost"}),
        ("/v2/organizations/documents/count/get", {"organizationId": "org", "folderId": "no"}),
    ):
        assert_failure(await call(api, ws, path, data), 404, "NOT_FOUND")


# users/doc/get -----------------------------------------------------------------------------------


async def test_document_users_are_listed_with_their_documents_when_asked(api: ApiClient) -> None:
    ws = await members_everywhere(api)

    plain = await call(api, ws, "/v2/users/doc/get", {"organizationId": "org"})
    involved = await ok(
        api,
        ws,
        "/v2/users/doc/get",
        {"organizationId": "org", "userIds": ["cid", "ann"], "includeInvolvedDocuments": True},
    )

    assert plain.status == 200, plain.body
    assert [(u["userId"], u["name"]) for u in plain.data] == [("bob", "Bob"), ("cid", "Cid")]
    assert "involvedDocuments" not in plain.data[0]
    assert "nextPageToken" not in plain.result
    assert involved == [
        {
            "userId": "cid",
            "name": "Cid",
            "email": "",
            "initial": "C",
            "involvedDocuments": [
                {"documentId": "doc-1", "accessRole": "editor"},
                {"documentId": "doc-2", "accessRole": "editor"},
            ],
        }
    ]


async def test_document_users_come_a_page_at_a_time(api: ApiClient) -> None:
    ws = await members_everywhere(api)

    first = await call(api, ws, "/v2/users/doc/get", {"organizationId": "org", "pageSize": 1})
    token = first.result["nextPageToken"]
    second = await call(
        api, ws, "/v2/users/doc/get", {"organizationId": "org", "pageSize": 1, "pageToken": token}
    )

    assert [u["userId"] for u in first.data] == ["bob"]
    assert first.result["pageToken"] == token
    assert [u["userId"] for u in second.data] == ["cid"]
    assert "nextPageToken" not in second.result


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"includeInvolvedDocuments": True}, "data.userIds"),
        (
            {"includeInvolvedDocuments": True, "userIds": ["a", "b", "c", "d", "e", "f"]},
            "data.userIds",
        ),
        ({"userIds": [f"u{i}" for i in range(21)]}, "data.userIds"),
        ({"pageSize": 1001}, "data.pageSize"),
        ({"pageToken": "forged"}, "data.pageToken"),
    ],
)
async def test_document_user_lookups_are_bounded(
    api: ApiClient, data: dict[str, Any], path: str
) -> None:
    ws = await members_everywhere(api)

    response = await call(api, ws, "/v2/users/doc/get", {"organizationId": "org", **data})

    assert issue_paths(assert_failure(response, 400, "INVALID_ARGUMENT")) == [path]


# organizations/documents/count/get ---------------------------------------------------------------


async def documents_with_metadata(api: ApiClient) -> Workspace:
    ws = await api.create_workspace("doc-count@example.com")
    await ok(api, ws, "/v2/organizations/add", {"organizations": [{"organizationId": "org"}]})
    loose = [
        {"documentId": "a", "metadata": {"kind": "design", "size": 3, "tags": ["x", "y"]}},
        {"documentId": "b", "metadata": {"kind": "legal", "size": 10, "owner": {"team": "t1"}}},
        {"documentId": "c", "metadata": {"kind": "design", "size": "big"}},
        {"documentId": "d"},
    ]
    await ok(
        api, ws, "/v2/organizations/documents/add", {"organizationId": "org", "documents": loose}
    )
    await ok(
        api,
        ws,
        "/v2/organizations/documents/add",
        {
            "organizationId": "org",
            "folderId": "f",
            "createFolder": True,
            "documents": [{"documentId": "e", "metadata": {"kind": "design"}}],
        },
    )
    return ws


def where(key: str, operator: str, value: Any) -> dict[str, Any]:
    return {"key": key, "operator": operator, "value": value}


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ({}, {"count": 5}),
        ({"excludeFolderDocs": True}, {"count": 4}),
        ({"folderId": "f"}, {"count": 1}),
        ({"folderId": "root"}, {"count": 4}),
        ({"filters": [where("kind", "==", "design")]}, {"count": 3, "filtersApplied": True}),
        (
            {"filters": [where("metadata.kind", "!=", "design")]},
            {"count": 1, "filtersApplied": True},
        ),
        ({"filters": [where("size", ">=", 3)]}, {"count": 2, "filtersApplied": True}),
        ({"filters": [where("size", "<", 5)]}, {"count": 1, "filtersApplied": True}),
        ({"filters": [where("kind", "in", ["legal", "x"])]}, {"count": 1, "filtersApplied": True}),
        ({"filters": [where("kind", "not-in", ["legal"])]}, {"count": 3, "filtersApplied": True}),
        ({"filters": [where("tags", "array-contains", "y")]}, {"count": 1, "filtersApplied": True}),
        (
            {"filters": [where("tags", "array-contains-any", ["q", "x"])]},
            {"count": 1, "filtersApplied": True},
        ),
        ({"filters": [where("owner.team", "==", "t1")]}, {"count": 1, "filtersApplied": True}),
        (
            {"folderId": "f", "filters": [where("kind", "==", "design")]},
            {"count": 1, "filtersApplied": True},
        ),
        (
            {"filters": [where("kind", "==", "design"), where("size", "==", 3)]},
            {"count": 1, "filtersApplied": True},
        ),
    ],
)
async def test_documents_are_counted_in_a_folder_or_by_metadata(
    api: ApiClient, query: dict[str, Any], answer: dict[str, Any]
) -> None:
    ws = await documents_with_metadata(api)

    got = await ok(
        api, ws, "/v2/organizations/documents/count/get", {"organizationId": "org", **query}
    )

    assert got == answer


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ({"filters": [where("kind", "==", "x")], "excludeFolderDocs": True}, "data.filters"),
        ({"filters": [where("kind", "like", "x")]}, "data.filters[0].operator"),
        ({"filters": [where("kind", "in", "legal")]}, "data.filters[0].value"),
        ({"filters": [where("kind", "in", [])]}, "data.filters[0].value"),
        ({"filters": [where("a..b", "==", 1)]}, "data.filters[0].key"),
        ({"filters": [where("kind", "==", 1)] * 11}, "data.filters"),
        ({"filters": [{"key": "kind", "operator": "=="}]}, "data.filters[0].value"),
    ],
)
async def test_invalid_document_counts_are_refused_naming_the_field(
    api: ApiClient, query: dict[str, Any], path: str
) -> None:
    ws = await documents_with_metadata(api)

    response = await call(
        api, ws, "/v2/organizations/documents/count/get", {"organizationId": "org", **query}
    )

    assert issue_paths(assert_failure(response, 400, "INVALID_ARGUMENT")) == [path]


async def test_counts_see_only_the_callers_workspace(api: ApiClient) -> None:
    a = await members_everywhere(api)
    b = await api.create_workspace("counts-b@example.com")
    await add_users(api, b, ["zed"])

    assert await ok(api, b, "/v2/users/count/get", {"organizationId": "org"}) == {"count": 1}
    assert await ok(api, b, "/v2/users/doc/get", {"organizationId": "org"}) == []
    assert await ok(api, b, "/v2/organizations/documents/count/get", {"organizationId": "org"}) == {
        "count": 0
    }
    assert await ok(api, a, "/v2/users/count/get", {"organizationId": "org"}) == {"count": 2}


async def test_counts_need_the_api_keys_own_credentials(api: ApiClient) -> None:
    ws = await members_everywhere(api)

    for path in (
        "/v2/users/count/get",
        "/v2/users/doc/get",
        "/v2/organizations/documents/count/get",
    ):
        data = {"organizationId": "org"}
        wrong = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": "no"}
        assert_failure(await api.post(path, data, headers=wrong), 401, "UNAUTHENTICATED")
        workspace_level = await api.post(path, data, headers=ws.workspace_headers)
        assert_failure(workspace_level, 400, "INVALID_ARGUMENT")
